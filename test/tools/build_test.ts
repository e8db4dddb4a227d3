/**
 * `deno task build` while the bundles are in use: builds overlap in the suite (`deno task start`
 * builds, and so does each test process that finds a bundle stale) while services serve the
 * bundles to browsers. Two builds at once, and a reader reading every bundle meanwhile: every
 * read finds a whole file, and no build's staging directory is left behind.
 */
import assert from "node:assert/strict";
import { BUNDLES } from "../../tools/build.ts";
import { ensureWidgetBuilt } from "../helpers/widget.ts";

const root = new URL("../../", import.meta.url).pathname;

function build(): Promise<Deno.CommandOutput> {
  return new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "tools/build.ts"],
    cwd: root,
    stdout: "null",
    stderr: "piped",
  }).output();
}

Deno.test("build: two builds at once never leave a bundle missing or half written", async () => {
  await ensureWidgetBuilt();
  // The builds are deterministic: what each bundle holds now is what every read must find.
  const expected = await Promise.all(BUNDLES.map((b) => Deno.readFile(`${root}${b.file}`)));
  let running = true;
  let reads = 0;
  const problems: string[] = [];
  const reader = (async () => {
    while (running) {
      for (const [i, b] of BUNDLES.entries()) {
        const bytes = await Deno.readFile(`${root}${b.file}`).catch(() => null);
        reads++;
        if (!bytes) problems.push(`${b.file} missing`);
        else if (bytes.length !== expected[i].length) {
          problems.push(`${b.file} ${bytes.length} of ${expected[i].length} bytes`);
        }
      }
      await new Promise((r) => setTimeout(r, 5));
    }
  })();
  const outs = await Promise.all([build(), build()]);
  running = false;
  await reader;
  for (const out of outs) assert.ok(out.success, new TextDecoder().decode(out.stderr));
  assert.ok(reads > 20, `the reader read while the builds ran (${reads} reads)`);
  assert.deepEqual(problems.slice(0, 5), [], `${problems.length} bad reads`);
  const left = [...Deno.readDirSync(`${root}widget`)].filter((e) => e.name.startsWith(".stage-"));
  assert.deepEqual(left.map((e) => e.name), [], "no staging directory left");
});
