/** ETag / If-None-Match for single-resource GETs: the tag is a hash of the JSON body. */
import type { Context } from "hono";

/**
 * A 64-bit FNV-1a style hash of `text` as 16 hex digits. Not cryptographic: an ETag only has to
 * change when the body does (two 32-bit lanes with different primes make a collision between
 * two versions of one resource about 1 in 2^64).
 */
export function bodyHash(text: string): string {
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ text.length;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995);
    b ^= b >>> 15;
  }
  return (a >>> 0).toString(16).padStart(8, "0") + (b >>> 0).toString(16).padStart(8, "0");
}

/** True when the request's If-None-Match names `tag` (weakly or strongly) or is `*`. */
export function notModified(c: Context, tag: string): boolean {
  const asked = c.req.header("If-None-Match");
  return !!asked &&
    (asked.trim() === "*" || asked.split(",").some((t) => t.trim().replace(/^W\//, "") === tag));
}

/** Answers `body` as JSON with a strong ETag, or 304 when If-None-Match already has it. */
export function jsonWithEtag(c: Context, body: unknown): Response {
  return jsonTextWithEtag(c, JSON.stringify(body));
}

/** Answers JSON `text` as it is, with a strong ETag, or 304 when If-None-Match has it. */
export function jsonTextWithEtag(c: Context, text: string): Response {
  const tag = `"${bodyHash(text)}"`;
  c.header("ETag", tag);
  c.header("Cache-Control", "no-store");
  if (notModified(c, tag)) return c.body(null, 304);
  c.header("Content-Type", "application/json");
  return c.body(text, 200);
}
