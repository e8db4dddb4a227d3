/**
 * HMAC-SHA256 with Web Crypto, for signatures made in any JavaScript runtime: signed requests
 * (the signer package bundles this file: no imports beyond base64.ts) and the backup proof. The
 * service's hot paths use node:crypto's synchronous HMAC instead: the launch's verification
 * (server/launch/signed_request.ts) and callback signatures (server/callbacks/signing.ts).
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
