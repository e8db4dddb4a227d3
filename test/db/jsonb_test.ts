/**
 * JSON and text parameters that carry U+0000 (a refused launch's payload may): PostgreSQL cannot
 * store it, so jsonb() and withoutNul() write U+FFFD instead of failing the whole record.
 */
import assert from "node:assert/strict";
import { backends } from "../helpers/db.ts";
import { jsonb, withoutNul } from "../../db/mod.ts";

for (const backend of backends) {
  Deno.test(`jsonb and text with U+0000 are stored with U+FFFD [${backend.name}]`, async () => {
    const db = await backend.open();
    try {
      const value = { "key\0": "a\0b", literal: "\\u0000 stays text", both: "\\\0" };
      const [row] = await db.sql`select ${jsonb(db.sql, value)}::jsonb as v,
        ${withoutNul("Unsupported algorithm: \0x")}::text as t`;
      assert.deepEqual(row.v, {
        "key\uFFFD": "a\uFFFDb",
        literal: "\\u0000 stays text",
        both: "\\\uFFFD",
      });
      assert.equal(row.t, "Unsupported algorithm: \uFFFDx");
    } finally {
      await db.close();
    }
  });
}
