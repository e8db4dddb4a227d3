/**
 * One field of an `application/x-www-form-urlencoded` body, read as `URLSearchParams` reads it
 * (the WHATWG URL standard's parser), at a fraction of its cost: a launch's body is one field of
 * about 3 KB, which `new URLSearchParams(text)` parsed in about 14 µs and this in about 5.
 */

/** The segment decoded as the standard says ('+' is a space), or undefined when it is not UTF-8. */
function decodeSegment(segment: string): string | undefined {
  const spaced = segment.includes("+") ? segment.replaceAll("+", " ") : segment;
  if (!spaced.includes("%")) return spaced;
  try {
    return decodeURIComponent(spaced);
  } catch {
    return undefined;
  }
}

/** What the standard's parser answers: for the bodies the fast reading does not cover. */
function standardValues(body: string, name: string): string[] {
  return new URLSearchParams(body).getAll(name);
}

/**
 * Every value of the field `name` in `body`, in order: what `new URLSearchParams(body).getAll(name)`
 * answers. `decodeURIComponent` decodes what the standard's percent-decoding and UTF-8 decoding
 * would when the bytes are UTF-8; a body holding a `%` that starts no escape, bytes that are not
 * UTF-8 or a lone surrogate (which the standard replaces with U+FFFD) goes to `URLSearchParams`
 * itself.
 */
export function formValues(body: string, name: string): string[] {
  if (!body.isWellFormed()) return standardValues(body, name);
  const values: string[] = [];
  for (let start = 0; start < body.length;) {
    let end = body.indexOf("&", start);
    if (end < 0) end = body.length;
    if (end > start) {
      let split = body.indexOf("=", start);
      if (split < 0 || split > end) split = end;
      const field = decodeSegment(body.slice(start, split));
      if (field === undefined) return standardValues(body, name);
      if (field === name) {
        const decoded = split === end ? "" : decodeSegment(body.slice(split + 1, end));
        if (decoded === undefined) return standardValues(body, name);
        values.push(decoded);
      }
    }
    start = end + 1;
  }
  return values;
}
