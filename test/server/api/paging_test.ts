import assert from "node:assert/strict";
import { decodeCursor, encodeCursor, page } from "../../../server/api/paging.ts";
import { AppError } from "../../../server/http/errors.ts";

Deno.test("paging: a cursor round-trips its id and is opaque", () => {
  const cursor = encodeCursor(12345);
  assert.match(cursor, /^[A-Za-z0-9_-]+$/);
  assert.doesNotMatch(cursor, /12345/);
  assert.equal(decodeCursor(cursor), 12345);
  assert.equal(decodeCursor(undefined), undefined);
  assert.equal(decodeCursor(""), undefined);
});

Deno.test("paging: a cursor the API did not give out is a 400 naming cursor", () => {
  const forged = new TextEncoder().encode("v1:0").toBase64();
  for (const bad of ["%%%", "abc", forged, encodeCursor(1) + "x"]) {
    assert.throws(() => decodeCursor(bad), (err: unknown) => {
      assert.ok(err instanceof AppError);
      assert.equal(err.status, 400);
      assert.equal(err.errors?.[0].path, "cursor");
      return true;
    }, bad);
  }
});

Deno.test("paging: page() trims the extra row and points the cursor at the last item", () => {
  const rows = [{ id: 9 }, { id: 7 }, { id: 4 }];
  const more = page(rows, 2, (r) => r.id);
  assert.deepEqual(more.items, [9, 7]);
  assert.equal(decodeCursor(more.nextCursor!), 7);
  const last = page(rows, 3, (r) => r.id);
  assert.deepEqual(last.items, [9, 7, 4]);
  assert.equal(last.nextCursor, null);
});
