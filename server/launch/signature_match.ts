/**
 * Whether a signed_request's signature segment is the HMAC-SHA256 of its payload segment under a
 * key: the one check the launch (signed_request.ts), the signature diagnosis and its hints
 * (signature_diagnosis.ts, signature_hint.ts) and the Inspector make. Pure: no I/O.
 */
import { timingSafeEqual } from "node:crypto";
import { decodeBase64 } from "../crypto/base64.ts";
import { HmacSha256Key } from "../crypto/hmac_sha256.ts";

/** The parts of a signed request that every key is checked against, decoded once. */
export interface SignedParts {
  /** The signature's 32 bytes. */
  signature: Uint8Array;
  /** The payload segment exactly as received (the HMAC's message). */
  encodedPayload: string;
}

/**
 * The signature (32 bytes of Base64 in either alphabet) and the payload segment (printable
 * ASCII) of `raw`, or null when either cannot be a signed request's.
 */
export function signedParts(raw: string): SignedParts | null {
  const dot = raw.indexOf(".");
  if (dot < 0) return null;
  const signature = decodeBase64(raw.slice(0, dot));
  const encodedPayload = raw.slice(dot + 1);
  if (!signature || signature.length !== 32 || !/^[\x21-\x7e]*$/.test(encodedPayload)) {
    return null;
  }
  return { signature, encodedPayload };
}

/** True when `parts`' signature is the HMAC of its payload segment under `key` (constant time). */
export function partsMatch(parts: SignedParts, key: HmacSha256Key): boolean {
  // The message is the payload segment's ASCII bytes exactly as received. signedParts admits
  // printable ASCII only, whose UTF-8 bytes are those bytes: the string goes in as UTF-8, which
  // Deno's node:crypto encodes natively, where "latin1" ran a JavaScript loop (57 µs against
  // 14 µs for a 5.4 KB segment).
  return timingSafeEqual(key.mac(parts.encodedPayload), parts.signature);
}

/**
 * True when the signature segment matches the payload segment under `key`, compared in constant
 * time, with the synchronous HMAC of server/crypto/hmac_sha256.ts: Web Crypto's verify is an
 * async operation that cost 226 µs of the server's main thread per launch under load
 * (docs/performance.md). The signature diagnosis of a refused launch and the Inspector use it,
 * with the app's keys and other apps': their HMAC keys are not kept.
 */
export function signatureMatches(raw: string, key: string): boolean {
  const parts = signedParts(raw);
  return parts !== null && partsMatch(parts, new HmacSha256Key(key));
}
