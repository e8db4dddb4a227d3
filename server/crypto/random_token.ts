/** Random tokens for API keys, consumer secrets and client credentials. */

const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
// 62 * 4 = 248: bytes at or above it are rejected, so every character is equally likely.
const LIMIT = 248;

/** Returns `length` characters of [A-Za-z0-9] drawn uniformly (rejection sampling, no modulo bias). */
export function generateToken(length = 32): string {
  let out = "";
  const buffer = new Uint8Array(Math.min(4096, Math.max(16, length * 2)));
  while (out.length < length) {
    crypto.getRandomValues(buffer);
    for (const byte of buffer) {
      if (byte >= LIMIT) continue;
      out += ALPHABET[byte % 62];
      if (out.length === length) break;
    }
  }
  return out;
}

/** Returns `bytes` random bytes. */
export function randomBytes(bytes: number): Uint8Array {
  return crypto.getRandomValues(new Uint8Array(bytes));
}
