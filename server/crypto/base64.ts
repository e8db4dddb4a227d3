/** Strict Base64 codec: the standard or URL-safe alphabet, padded or not, never whitespace. */

const STANDARD = /^[A-Za-z0-9+/]*={0,2}$/;
const URL_SAFE = /^[A-Za-z0-9_-]*={0,2}$/;

/** Encodes bytes (or text as UTF-8) as standard padded Base64. */
export function encodeBase64(data: Uint8Array | string): string {
  const bytes = typeof data === "string" ? new TextEncoder().encode(data) : data;
  return bytes.toBase64();
}

/** Encodes bytes as URL-safe Base64 without padding. */
export function encodeBase64Url(bytes: Uint8Array): string {
  return bytes.toBase64({ alphabet: "base64url", omitPadding: true });
}

/**
 * Decodes Base64 in either alphabet, padded or unpadded; returns null for anything else
 * (whitespace, mixed alphabets, bad length or padding).
 */
export function decodeBase64(text: string): Uint8Array | null {
  const alphabet = STANDARD.test(text) ? "base64" : URL_SAFE.test(text) ? "base64url" : null;
  if (alphabet === null) return null;
  const body = text.replace(/=+$/, "");
  if (body.length % 4 === 1) return null;
  const padded = body + "=".repeat((4 - (body.length % 4)) % 4);
  if (text.length !== body.length && text !== padded) return null;
  try {
    return Uint8Array.fromBase64(padded, { alphabet, lastChunkHandling: "strict" });
  } catch {
    return null;
  }
}
