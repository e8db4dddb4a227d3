/** Alternated variants (tools/bench/alternate.ts): the order of runs and the merged results. */
import assert from "node:assert/strict";
import { alternated, merged } from "../../../tools/bench/alternate.ts";
import { cpuCosts, cpuNotes } from "../../../tools/bench/load.ts";
import type { WrkResult } from "../../../tools/bench/wrk.ts";

const run = (name: string, rps: number, p50: number, p99: number, non2xx = 0): WrkResult => ({
  name,
  connections: 64,
  requestsPerSecond: rps,
  p50Ms: p50,
  p99Ms: p99,
  non2xx,
  errors: 0,
});

Deno.test("alternated runs A and B in turn, A first, and merges each side", async () => {
  const order: string[] = [];
  const side = (name: string, rates: number[]) => ({
    name,
    run: (k: number) => {
      order.push(`${name}${k}`);
      return Promise.resolve(run(`${name} ${k}`, rates[k], 10, 20 + k));
    },
  });
  const [a, b] = await alternated(2, side("off", [100, 300]), side("on", [90, 250]));
  assert.deepEqual(order, ["off0", "on0", "off1", "on1"]);
  assert.equal(a.name, "off");
  assert.equal(a.requestsPerSecond, 200);
  assert.equal(b.requestsPerSecond, 170);
  assert.equal(b.p99Ms, 21, "the worst p99 of the side's runs");
});

Deno.test("merged weighs CPU per request by each run's requests, and sums failures", () => {
  const slow = run("slow", 100, 10, 50, 1);
  const fast = run("fast", 300, 6, 30, 2);
  cpuCosts.set(slow, { serverMs: 1.0, postgresMs: 2.0, machineBusy: 0.5 });
  cpuCosts.set(fast, { serverMs: 0.6, postgresMs: 1.0, machineBusy: 0.9 });
  const m = merged("both", [slow, fast]);
  assert.equal(m.requestsPerSecond, 200);
  assert.equal(m.p50Ms, 8);
  assert.equal(m.p99Ms, 50);
  assert.equal(m.non2xx, 3);
  const cost = cpuCosts.get(m)!;
  assert.ok(
    Math.abs(cost.serverMs - 0.7) < 1e-9,
    `(1.0 × 100 + 0.6 × 300) / 400, got ${cost.serverMs}`,
  );
  assert.ok(Math.abs(cost.postgresMs - 1.25) < 1e-9);
  assert.match(cpuNotes.get(m)!, /server 0\.70 ms, PostgreSQL 1\.25 ms; machine 80 % busy; 2 runs/);
});

Deno.test("merged notes no CPU when a run has none", () => {
  const m = merged("bare", [run("a", 10, 1, 2), run("b", 20, 1, 3)]);
  assert.equal(cpuCosts.get(m), undefined);
  assert.equal(m.requestsPerSecond, 15);
});
