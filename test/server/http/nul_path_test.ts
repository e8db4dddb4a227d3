/** nulPath (server/http/nul.ts): where in a decoded input the first U+0000 is. */
import assert from "node:assert/strict";
import { nulPath, unstorableText } from "../../../server/http/nul.ts";

Deno.test("nulPath answers null for a clean input of every JSON kind", () => {
  assert.equal(nulPath({ a: "x", b: [1, "y", { c: null, d: true }], e: {} }), null);
  assert.equal(nulPath("text"), null);
  assert.equal(nulPath(42), null);
  assert.equal(nulPath(null), null);
});

Deno.test("nulPath names the value, array item or key that holds U+0000", () => {
  assert.equal(nulPath("a\0b"), "(root)");
  assert.equal(nulPath({ context: { user: { id: "a\0" } } }), "context.user.id");
  assert.equal(nulPath({ list: ["ok", { name: "x\0" }] }), "list.1.name");
  assert.equal(nulPath({ outer: { "bad\0key": 1 } }), "outer.bad\0key");
  // The first in document order, however deep.
  assert.equal(nulPath({ a: { b: { c: "\0" } }, z: "\0" }), "a.b.c");
});

Deno.test("nulPath walks a key named __proto__ like any other", () => {
  assert.equal(nulPath(JSON.parse('{"__proto__": {"x": "\\u0000"}}')), "__proto__.x");
  assert.equal(nulPath(JSON.parse('{"__proto__": {"x": "ok"}}')), null);
});

Deno.test("unstorableText names NUL and half surrogate pairs, each with its code", () => {
  assert.equal(unstorableText({ a: "x", emoji: "\u{1F600}", b: ["\ud83d\ude00"] }), null);
  assert.deepEqual(unstorableText({ a: ["ok", "x\ud800"] }), {
    path: "a.1",
    code: "unpaired_surrogate",
  });
  assert.deepEqual(unstorableText({ ["\udc00"]: 1 }), {
    path: "\udc00",
    code: "unpaired_surrogate",
  });
  assert.deepEqual(unstorableText({ a: "\0" }), { path: "a", code: "nul_character" });
  // The first problem met, in key order.
  assert.deepEqual(unstorableText({ a: "\ud800", b: "\0" }), {
    path: "a",
    code: "unpaired_surrogate",
  });
  assert.equal(nulPath({ a: "\ud800" }), null, "nulPath names NULs only");
});
