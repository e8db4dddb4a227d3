/**
 * `bench-profile --allocations`: the sampling profile's tree summed by allocating function and by
 * area, the table per request, and a real sampling of a process through its inspector.
 */
import assert from "node:assert/strict";
import {
  allocationCosts,
  allocationTable,
  sampleAllocations,
} from "../../../tools/bench/allocations.ts";
import { freePort, stop } from "../../../tools/bench/processes.ts";
import { untilOutput } from "../../helpers/process.ts";

const frame = (functionName: string, url: string, lineNumber = 0) => ({
  functionName,
  url,
  lineNumber,
});

Deno.test("allocations: self bytes summed by function and by area; empty frames skipped", () => {
  const hono = "file:///x/node_modules/.deno/hono@4.13.19/node_modules/hono/dist/compose.js";
  const own = "file:///work/main/server/oauth/form.ts";
  const tree = {
    callFrame: frame("(root)", ""),
    selfSize: 0,
    children: [
      {
        callFrame: frame("dispatch", hono, 23),
        selfSize: 3000,
        children: [
          { callFrame: frame("readOAuthForm", own, 5), selfSize: 1000, children: [] },
          { callFrame: frame("dispatch", hono, 23), selfSize: 2000, children: [] },
        ],
      },
      { callFrame: frame("set", "ext:deno_fetch/20_headers.js"), selfSize: 500, children: [] },
    ],
  };
  const a = allocationCosts(tree);
  assert.equal(a.bytes, 6500);
  assert.deepEqual(a.functions, [
    { name: "dispatch compose.js:24", bytes: 5000 },
    { name: "readOAuthForm form.ts:6", bytes: 1000 },
    { name: "set 20_headers.js:1", bytes: 500 },
  ]);
  assert.deepEqual(a.areas, [
    { name: "Hono (npm)", bytes: 5000 },
    { name: "server/oauth", bytes: 1000 },
    { name: "Deno runtime", bytes: 500 },
  ]);
  // Per request: 5,000 bytes over 2 requests = 2.44 KiB, 76.9 % of all.
  const table = allocationTable("function (self)", a.functions, a.bytes, 2, 2).split("\n");
  assert.deepEqual(table, [
    "| function (self) | KiB per request | share |",
    "|---|---:|---:|",
    "| dispatch compose.js:24 | 2.44 | 76.9 % |",
    "| readOAuthForm form.ts:6 | 0.49 | 15.4 % |",
  ]);
});

// The inspector's WebSocket and the child's pipes close as the child stops, not within the test.
const opts = { sanitizeOps: false, sanitizeResources: false };

Deno.test(
  "allocations: a running process's allocator is found through its inspector",
  opts,
  async () => {
    // A child that allocates in one named function until stopped.
    const dir = await Deno.makeTempDir({ prefix: "pl-alloc-" });
    const script = `${dir}/churn.ts`;
    await Deno.writeTextFile(
      script,
      `let keep: unknown[] = [];
function churnArrays() { for (let i = 0; i < 2000; i++) keep.push(new Array(64).fill(i)); keep = []; }
setInterval(churnArrays, 1);
console.log("ready");
`,
    );
    const port = freePort();
    const child = new Deno.Command(Deno.execPath(), {
      args: ["run", `--inspect=127.0.0.1:${port}`, script],
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    try {
      await untilOutput(child, /^ready$/m, 30_000, "ready line");
      const stopSampling = await sampleAllocations(port, 1024);
      await new Promise((resolve) => setTimeout(resolve, 500));
      const sampled = await stopSampling();
      assert.ok(sampled.bytes > 100_000, `${sampled.bytes} bytes sampled`);
      assert.match(sampled.functions[0].name, /^churnArrays churn\.ts:\d+$/);
      assert.ok(sampled.functions[0].bytes > sampled.bytes / 2, JSON.stringify(sampled.functions));
    } finally {
      await stop(child);
      await Deno.remove(dir, { recursive: true });
    }
  },
);
