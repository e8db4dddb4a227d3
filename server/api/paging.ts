/**
 * Keyset pagination for the REST lists: items run newest first (id descending) and the cursor
 * names the last id seen, so rows inserted while a client pages never cause a duplicate or a
 * skipped item.
 */
import { decodeBase64, encodeBase64Url } from "../crypto/base64.ts";
import { AppError } from "../http/errors.ts";

const PREFIX = "v1:";

/** The opaque cursor that continues after `id`. */
export function encodeCursor(id: number): string {
  return encodeBase64Url(new TextEncoder().encode(`${PREFIX}${id}`));
}

/** The id a cursor continues after; 400 naming `cursor` when it is not one this API gave out. */
export function decodeCursor(cursor: string | undefined): number | undefined {
  if (cursor === undefined || cursor === "") return undefined;
  const bytes = decodeBase64(cursor);
  const text = bytes ? new TextDecoder().decode(bytes) : "";
  const match = text.match(new RegExp(`^${PREFIX}([1-9][0-9]{0,14})$`));
  if (!match) {
    throw new AppError(400, "validation_failed", "Invalid request", [{
      path: "cursor",
      message: "not a cursor this API gave out: pass nextCursor from the previous page unchanged",
    }]);
  }
  return Number(match[1]);
}

/** `{items, nextCursor}` from a page fetched with limit + 1 rows. */
export function page<R extends { id: number }, T>(
  rows: R[],
  limit: number,
  view: (row: R) => T,
): { items: T[]; nextCursor: string | null } {
  const more = rows.length > limit;
  const shown = more ? rows.slice(0, limit) : rows;
  return {
    items: shown.map(view),
    nextCursor: more ? encodeCursor(shown[shown.length - 1].id) : null,
  };
}
