/** docs/performance.md stays a living page: short, with dated runs kept in tools/bench/results/. */
import assert from "node:assert/strict";

const ROOT = new URL("../../", import.meta.url);
const PAGE = new URL("docs/performance.md", ROOT);

Deno.test("docs: performance.md is at most 12 KB", async () => {
  const size = (await Deno.stat(PAGE)).size;
  assert.ok(size <= 12_288, `${size} bytes: move dated runs to tools/bench/results/history.md`);
});

Deno.test("docs: performance.md links the results history, which exists", async () => {
  const text = await Deno.readTextFile(PAGE);
  assert.match(text, /\]\(\.\.\/tools\/bench\/results\/history\.md\)/);
  await Deno.stat(new URL("tools/bench/results/history.md", ROOT));
});
