/**
 * Hashes for secrets we store but never need back: tokens, client secrets, passwords. SHA-256 is
 * node:crypto's synchronous hash: Web Crypto's digest is an async operation that cost 124 µs of
 * the server's main thread per call under launch load, node:crypto's 4 µs (docs/performance.md).
 */
import { createHash } from "node:crypto";
import { decodeBase64, encodeBase64Url } from "./base64.ts";
import { randomBytes } from "./random_token.ts";

const encoder = new TextEncoder();

/** Password KDF cost: PBKDF2-HMAC-SHA256, the OWASP 2023 recommendation. */
export const PASSWORD_ITERATIONS = 600_000;

/** SHA-256 of a UTF-8 string, as URL-safe Base64 (used to store opaque bearer tokens). */
export function sha256(text: string): string {
  return createHash("sha256").update(text, "utf8").digest("base64url");
}

/** Compares two strings in time that depends only on their lengths. */
export function timingSafeEqual(a: string, b: string): boolean {
  const x = encoder.encode(a);
  const y = encoder.encode(b);
  let diff = x.length ^ y.length;
  for (let i = 0; i < Math.max(x.length, y.length); i++) diff |= (x[i] ?? 0) ^ (y[i] ?? 0);
  return diff === 0;
}

/**
 * Hashes a high-entropy machine secret (a generated client secret): `sha256$<salt>$<hash>`.
 * A slow KDF protects guessable human passwords; these secrets are >= 190 random bits, so a
 * salted SHA-256 is as safe and keeps token issuance fast.
 */
export function hashSecret(secret: string, salt = encodeBase64Url(randomBytes(16))): string {
  return `sha256$${salt}$${sha256(`${salt}$${secret}`)}`;
}

/** The salt of hashSecret's output, or null when `stored` is not one. */
export function secretSalt(stored: string): string | null {
  const parts = stored.split("$");
  const [scheme, salt, hash] = parts;
  return parts.length === 3 && scheme === "sha256" && salt && hash ? salt : null;
}

/** Checks a secret against hashSecret's output, in constant time for equal-length inputs. */
export function verifySecret(secret: string, stored: string): boolean {
  const salt = secretSalt(stored);
  return salt !== null && timingSafeEqual(hashSecret(secret, salt), stored);
}

async function pbkdf2(password: string, salt: Uint8Array, iterations: number): Promise<Uint8Array> {
  const key = await crypto.subtle.importKey("raw", encoder.encode(password), "PBKDF2", false, [
    "deriveBits",
  ]);
  const bits = await crypto.subtle.deriveBits(
    { name: "PBKDF2", hash: "SHA-256", salt: salt as BufferSource, iterations },
    key,
    256,
  );
  return new Uint8Array(bits);
}

/** Hashes a human password: `pbkdf2-sha256$<iterations>$<salt>$<hash>`. */
export async function hashPassword(password: string, iterations = PASSWORD_ITERATIONS) {
  const salt = randomBytes(16);
  const hash = await pbkdf2(password, salt, iterations);
  return `pbkdf2-sha256$${iterations}$${encodeBase64Url(salt)}$${encodeBase64Url(hash)}`;
}

/** Checks a password against hashPassword's output. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, iterText, saltText, hashText] = stored.split("$");
  const salt = saltText ? decodeBase64(saltText) : null;
  if (scheme !== "pbkdf2-sha256" || !salt || !hashText || !/^\d+$/.test(iterText ?? "")) {
    return false;
  }
  const hash = await pbkdf2(password, salt, Number(iterText));
  return timingSafeEqual(encodeBase64Url(hash), hashText);
}
