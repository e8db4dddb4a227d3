/** unstorableText (server/http/nul.ts): where in a decoded input the first unstorable text is. */
import assert from "node:assert/strict";
import { unstorableText } from "../../../server/http/nul.ts";

/** The path of the first NUL (null when there is none, or the first problem is another). */
const nulPath = (value: unknown) => {
  const found = unstorableText(value);
  return found?.code === "nul_character" ? found.path : null;
};

Deno.test("unstorableText answers null for a clean input of every JSON kind", () => {
  assert.equal(unstorableText({ a: "x", b: [1, "y", { c: null, d: true }], e: {} }), null);
  assert.equal(unstorableText("text"), null);
  assert.equal(unstorableText(42), null);
  assert.equal(unstorableText(null), null);
});

Deno.test("unstorableText names the value, array item or key that holds U+0000", () => {
  assert.equal(nulPath("a\0b"), "(root)");
  assert.equal(nulPath({ context: { user: { id: "a\0" } } }), "context.user.id");
  assert.equal(nulPath({ list: ["ok", { name: "x\0" }] }), "list.1.name");
  assert.equal(nulPath({ outer: { "bad\0key": 1 } }), "outer.bad\0key");
  // The first in document order, however deep.
  assert.equal(nulPath({ a: { b: { c: "\0" } }, z: "\0" }), "a.b.c");
});

Deno.test("unstorableText: a key named __proto__ is reserved, before what it holds", () => {
  // JSON.parse makes it an own key, which any schema would then drop without a word.
  for (const text of ['{"__proto__": {"x": "\\u0000"}}', '{"a": {"__proto__": {"x": "ok"}}}']) {
    const found = unstorableText(JSON.parse(text));
    assert.equal(found?.code, "reserved_key", text);
    assert.match(found!.path, /(^|\.)__proto__$/);
  }
  assert.equal(unstorableText({ proto: 1, __proto: 2, "__proto__x": 3 }), null);
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
});
