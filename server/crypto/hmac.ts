/**
 * HMAC-SHA256 with Web Crypto, for every signature the service makes: signed requests, callback
 * signatures, the backup proof. No imports beyond base64.ts, so the signer package bundles it.
 * (The launch's own verification keeps imported keys cached: server/launch/signed_request.ts.)
 */
import { encodeBase64 } from "./base64.ts";

const encoder = new TextEncoder();

/** The MAC of the UTF-8 bytes of `text` under `key` (text as UTF-8, or raw bytes). */
export async function hmacSha256(key: string | Uint8Array, text: string): Promise<Uint8Array> {
  const cryptoKey = await crypto.subtle.importKey(
    "raw",
    (typeof key === "string" ? encoder.encode(key) : key) as BufferSource,
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  return new Uint8Array(await crypto.subtle.sign("HMAC", cryptoKey, encoder.encode(text)));
}

/**
 * Signs a launch payload's JSON text: Base64 of its UTF-8 bytes, HMAC-SHA256 over that Base64
 * text keyed with the API key, Base64 signature, joined with a period (docs/spec.md §4.1).
 */
export async function signPayload(payloadJson: string, key: string): Promise<string> {
  const encodedPayload = encodeBase64(payloadJson);
  return `${await hmacBase64(encodedPayload, key)}.${encodedPayload}`;
}

/** Base64 of HMAC-SHA256 over the UTF-8 bytes of `text`, keyed with `key`. */
export async function hmacBase64(text: string, key: string): Promise<string> {
  return encodeBase64(await hmacSha256(key, text));
}
