/** Response bodies assembled from parts without a round trip through a JavaScript string. */

const encoder = new TextEncoder();

/**
 * One buffer of `parts` in order: strings encoded as UTF-8, byte parts (such as JSON text as
 * PostgreSQL sent it) copied as they are, each byte part copied once. Byte parts are read before
 * this returns, so a view into a driver's read buffer may be passed (db/deno_socket.ts never
 * rewrites a buffer it has handed out; it starts a new one).
 */
export function concatUtf8(parts: readonly (string | Uint8Array)[]): Uint8Array<ArrayBuffer> {
  const bytes = parts.map((p) => typeof p === "string" ? encoder.encode(p) : p);
  const out = new Uint8Array(bytes.reduce((n, b) => n + b.length, 0));
  let at = 0;
  for (const b of bytes) {
    out.set(b, at);
    at += b.length;
  }
  return out;
}
