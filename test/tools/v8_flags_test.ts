/**
 * The service's V8 heap caps are written in four places that start it: `deno task start`
 * (deno.json), `deno task serve`'s processes (server/ops/supervisor.ts), the release's launcher
 * script (deploy/bin/portal-launcher, which Docker and systemd run) and its compiled binary
 * (tools/release.ts). They must agree, or a deployment runs with other caps than the ones
 * measured (docs/operations.md, docs/performance.md).
 */
import assert from "node:assert/strict";
import { PROCESS_ARGS } from "../../server/ops/supervisor.ts";

const root = new URL("../../", import.meta.url);
const read = (path: string) => Deno.readTextFile(new URL(path, root));

/** Every `--v8-flags=...` word of a text. */
function v8Flags(text: string): string[] {
  return [...text.matchAll(/--v8-flags=[^\s"'`]+/g)].map((m) => m[0]);
}

Deno.test("V8 flags: start, serve, the launcher script and the compiled binary agree", async () => {
  const start: string = JSON.parse(await read("deno.json")).tasks.start.command;
  const [flags, ...more] = v8Flags(start);
  assert.ok(flags, "deno task start caps V8's heap");
  assert.deepEqual(more, [], "one --v8-flags in the start task");
  assert.match(flags, /--max-semi-space-size=\d+/);
  assert.match(flags, /--max-old-space-size=\d+/);

  assert.deepEqual(PROCESS_ARGS.filter((a) => a.startsWith("--v8-flags=")), [flags], "serve");
  const launcher = await read("deploy/bin/portal-launcher");
  const serveLine = launcher.split("\n").find((l) => /^\s*serve\)/.test(l)) ?? "";
  assert.deepEqual(v8Flags(serveLine), [flags], "the launcher script's serve command");
  assert.deepEqual(v8Flags(await read("tools/release.ts")), [flags], "the compiled binary");
});
