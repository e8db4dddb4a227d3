/**
 * Strict Base64 codec: the standard or URL-safe alphabet, padded or not, never whitespace. No
 * imports (the signer package bundles the encoder).
 */

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
 * (whitespace, mixed alphabets, bad length or padding). `Uint8Array.fromBase64` checks the
 * characters: a URL-safe one picks its alphabet, and a character of the other one then fails. It
 * skips ASCII whitespace, which this codec refuses: a text holding some decodes to fewer bytes than
 * its length says (test/server/crypto/base64_test.ts compares it with a pattern-checking decoder).
 */
export function decodeBase64(text: string): Uint8Array | null {
  const alphabet = text.includes("-") || text.includes("_") ? "base64url" : "base64";
  let end = text.length;
  if (text.charCodeAt(end - 1) === 61) end -= text.charCodeAt(end - 2) === 61 ? 2 : 1;
  const rest = end % 4;
  if (rest === 1) return null;
  // Unpadded: padded here, so that the strict mode checks the last chunk's unused bits.
  const padded = end === text.length && rest !== 0 ? text + "=".repeat(4 - rest) : text;
  if (padded.length % 4 !== 0) return null;
  let bytes: Uint8Array;
  try {
    bytes = Uint8Array.fromBase64(padded, { alphabet, lastChunkHandling: "strict" });
  } catch {
    return null;
  }
  return bytes.length === (end * 3) >> 2 ? bytes : null;
}
