/**
 * JSON and text parameters that carry U+0000 or half a surrogate pair (a refused launch's payload
 * may): PostgreSQL cannot store either, so jsonb() and storableText() write U+FFFD instead of
 * failing the whole record.
 */
import assert from "node:assert/strict";
import { backends } from "../helpers/db.ts";
import { jsonb, storableText } from "../../db/mod.ts";

for (const backend of backends) {
  Deno.test(`jsonb and text with U+0000 or half a surrogate pair are stored with U+FFFD [${backend.name}]`, async () => {
    const db = await backend.open();
    try {
      const value = {
        "key\0": "a\0b",
        literal: "\\u0000 stays text",
        both: "\\\0",
        half: "x\ud800y",
        ["\udc00"]: "low half as a key",
        pair: "an emoji \ud83d\ude00 stays",
        spelled: "\\ud800 stays text",
      };
      const [row] = await db.sql`select ${jsonb(db.sql, value)}::jsonb as v,
        ${storableText("Unsupported algorithm: \0x\ud800")}::text as t`;
      assert.deepEqual(row.v, {
        "key\uFFFD": "a\uFFFDb",
        literal: "\\u0000 stays text",
        both: "\\\uFFFD",
        half: "x\uFFFDy",
        ["\uFFFD"]: "low half as a key",
        pair: "an emoji \u{1F600} stays",
        spelled: "\\ud800 stays text",
      });
      assert.equal(row.t, "Unsupported algorithm: \uFFFDx\uFFFD");
    } finally {
      await db.close();
    }
  });
}
