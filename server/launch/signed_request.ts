/**
 * The signed_request codec (spec §4.1, §5.1): `<signature>.<encoded_payload>`, where signature is
 * Base64(HMAC-SHA256(key = UTF-8 API key, message = ASCII bytes of encoded_payload)). Pure: no I/O.
 */
import { decodeBase64, encodeBase64 } from "../crypto/base64.ts";
import { AppError } from "../http/errors.ts";

import { ALGORITHM } from "./contract.ts";

const encoder = new TextEncoder();

/** A verified request: the payload text as decoded and its parsed JSON. */
export interface VerifiedRequest {
  encodedPayload: string;
  payloadText: string;
  payload: Record<string, unknown>;
}

// Imported HMAC keys by usage and key text: importing costs as much as a verification.
const importedKeys = new Map<string, Promise<CryptoKey>>();
const MAX_IMPORTED_KEYS = 1000;

function hmacKey(key: string, usage: "sign" | "verify"): Promise<CryptoKey> {
  const id = `${usage}:${key}`;
  let found = importedKeys.get(id);
  if (!found) {
    found = crypto.subtle.importKey(
      "raw",
      encoder.encode(key),
      { name: "HMAC", hash: "SHA-256" },
      false,
      [usage],
    );
    importedKeys.set(id, found);
    if (importedKeys.size > MAX_IMPORTED_KEYS) {
      importedKeys.delete(importedKeys.keys().next().value!);
    }
  }
  return found;
}

/** Signs a JSON text: Base64 of its UTF-8 bytes, HMAC-SHA256 over that, joined by a period. */
export async function signPayload(payloadJson: string, key: string): Promise<string> {
  const encodedPayload = encodeBase64(payloadJson);
  return `${await hmacBase64(encodedPayload, key)}.${encodedPayload}`;
}

/** Base64 of HMAC-SHA256 over the UTF-8 bytes of `text`, keyed with `key`. */
export async function hmacBase64(text: string, key: string): Promise<string> {
  const mac = await crypto.subtle.sign("HMAC", await hmacKey(key, "sign"), encoder.encode(text));
  return encodeBase64(new Uint8Array(mac));
}

function invalidSignature(raw: string): AppError {
  const hint = raw.includes(" ")
    ? ": the value contains spaces, so '+' characters were probably sent unencoded; " +
      "percent-encode the form field (a '+' must be sent as %2B)"
    : "";
  return new AppError(401, "invalid_signature", `Invalid signature${hint}`);
}

/** True when the signature segment matches the payload segment under `key`. */
export async function signatureMatches(raw: string, key: string): Promise<boolean> {
  const dot = raw.indexOf(".");
  if (dot < 0) return false;
  const signature = decodeBase64(raw.slice(0, dot));
  const encodedPayload = raw.slice(dot + 1);
  // The message is the payload segment's ASCII bytes exactly as received.
  if (!signature || signature.length !== 32 || !/^[\x21-\x7e]*$/.test(encodedPayload)) {
    return false;
  }
  return await crypto.subtle.verify(
    "HMAC",
    await hmacKey(key, "verify"),
    signature as BufferSource,
    encoder.encode(encodedPayload),
  );
}

/**
 * Verifies `raw` with any of `keys` (constant-time, by crypto.subtle.verify), then decodes the
 * payload: Base64 (either alphabet), UTF-8, a JSON object whose `algorithm` is HMACSHA256.
 * Throws AppError 400 (malformed) or 401 (signature).
 */
export async function verifySignedRequest(
  raw: string | undefined,
  keys: string[],
): Promise<VerifiedRequest> {
  if (raw === undefined || raw === "") {
    throw new AppError(400, "missing_signed_request", "The form field signed_request is required");
  }
  const dot = raw.indexOf(".");
  if (dot <= 0 || dot === raw.length - 1) {
    throw new AppError(
      400,
      "malformed_signed_request",
      "signed_request must be <signature>.<encoded_payload>",
    );
  }
  let ok = false;
  for (const key of keys) ok = (await signatureMatches(raw, key)) || ok;
  if (!ok) throw invalidSignature(raw);

  const encodedPayload = raw.slice(dot + 1);
  const bytes = decodeBase64(encodedPayload);
  let payload: unknown;
  let payloadText: string;
  try {
    if (!bytes) throw new Error("not Base64");
    payloadText = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
    payload = JSON.parse(payloadText);
  } catch {
    throw new AppError(
      400,
      "malformed_payload",
      "The payload segment must be Base64 of UTF-8 JSON text",
    );
  }
  if (typeof payload !== "object" || payload === null || Array.isArray(payload)) {
    throw new AppError(400, "malformed_payload", "The payload must be a JSON object");
  }
  const algorithm = (payload as Record<string, unknown>).algorithm;
  if (algorithm !== ALGORITHM) {
    throw new AppError(
      400,
      "unsupported_algorithm",
      `Unsupported algorithm: ${typeof algorithm === "string" ? algorithm : String(algorithm)}`,
    );
  }
  return { encodedPayload, payloadText, payload: payload as Record<string, unknown> };
}
