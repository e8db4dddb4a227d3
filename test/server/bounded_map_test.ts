/** server/bounded_map.ts: the most recent entry goes last; past the bound, the least recent goes. */
import assert from "node:assert/strict";
import { setBounded } from "../../server/bounded_map.ts";

Deno.test("setBounded: an update moves its entry last; the bound drops the least recent", () => {
  const map = new Map<string, number>();
  for (const [k, v] of [["a", 1], ["b", 2], ["c", 3]] as const) setBounded(map, k, v, 3);
  assert.deepEqual([...map], [["a", 1], ["b", 2], ["c", 3]]);
  setBounded(map, "a", 10, 3); // an update: "a" is now the most recent
  assert.deepEqual([...map.keys()], ["b", "c", "a"]);
  setBounded(map, "d", 4, 3);
  assert.deepEqual([...map], [["c", 3], ["a", 10], ["d", 4]], "b, the least recent, went");
  setBounded(map, "e", 5, 1); // a smaller bound drops as many as it takes
  assert.deepEqual([...map], [["e", 5]]);
});
