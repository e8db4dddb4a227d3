/**
 * Strict Base64 codec: the standard or URL-safe alphabet, padded or not, never whitespace. No
 * imports (the signer package bundles the encoder).
 */

const STANDARD = /^[A-Za-z0-9+/]*={0,2}$/;
const URL_SAFE = /^[A-Za-z0-9_-]*={0,2}$/;

/**
 * Encodes bytes (or text as UTF-8) as standard padded Base64. Written with `btoa` so that it runs
 * on Node >= 18 too: the signer package bundles it.
 */
export function encodeBase64(data: Uint8Array | string): string {
  const bytes = typeof data === "string" ? new TextEncoder().encode(data) : data;
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(binary);
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
