/**
 * The signed_request codec (spec §4.1, §5.1): `<signature>.<encoded_payload>`, where signature is
 * Base64(HMAC-SHA256(key = UTF-8 API key, message = ASCII bytes of encoded_payload)). Pure: no I/O.
 */
import { decodeBase64 } from "../crypto/base64.ts";
import { HmacSha256Key, keptHmacKeys } from "../crypto/hmac_sha256.ts";
import { AppError } from "../http/errors.ts";

import { ALGORITHM, PAYLOAD_LIMITS, SIGNED_REQUEST_FIELD } from "./contract.ts";
import { jsonDepth, type LaunchWarning } from "./payload_cleaner.ts";
import { jsonErrorPosition } from "../http/json_position.ts";
import { signatureHints } from "./signature_hint.ts";
import { partsMatch, signedParts } from "./signature_match.ts";

/** UTF-8 decoding that refuses malformed bytes (stateless: one instance serves every request). */
const STRICT_UTF8 = new TextDecoder("utf-8", { fatal: true });

/** A verified request: the payload text as decoded, its parsed JSON, and any transport repair. */
export interface VerifiedRequest {
  encodedPayload: string;
  payloadText: string;
  payload: Record<string, unknown>;
  /** Set when the value needed a repair before it verified (see repairSignedRequest). */
  repaired: RepairWarning | null;
  /**
   * The signature's 32 bytes in hex, however the segment spelled them (padded or not, either
   * Base64 alphabet): the replay key of a request without a nonce.
   */
  signature: string;
  /** Which of the keys verified it (its index in the list given). */
  keyIndex: number;
}

/** The warning a repaired signed_request carries. */
export interface RepairWarning extends LaunchWarning {
  path: typeof SIGNED_REQUEST_FIELD;
  code: "signed_request_repaired";
  message: string;
  repairs: ("spaces_to_plus" | "line_breaks_removed")[];
}

/**
 * Undoes the two commonest transport mistakes, visibly: a '+' that became a space because the
 * form body was not percent-encoded, and Base64 wrapped at 76 columns (Java's MIME encoder,
 * `openssl base64`). The HMAC is then computed over the repaired text exactly; nothing else is
 * loosened. Returns the value unchanged and null when it needed no repair.
 */
export function repairSignedRequest(raw: string): { value: string; warning: RepairWarning | null } {
  const repairs: RepairWarning["repairs"] = [];
  // The ends are trimmed, except leading spaces: a signature may start with '+', which arrives as
  // a space (1 signature in 64), while the payload, Base64 of a JSON object, never ends with '+'.
  let value = raw.replace(/^[\t\r\n]+/, "").trimEnd();
  if (/[\r\n]/.test(value)) {
    value = value.replace(/[\r\n]+/g, "");
    repairs.push("line_breaks_removed");
  }
  if (value.includes(" ")) {
    value = value.replaceAll(" ", "+");
    repairs.push("spaces_to_plus");
  }
  if (!repairs.length) return { value, warning: null };
  const what = [
    repairs.includes("spaces_to_plus")
      ? "'+' characters arrived as spaces (percent-encode the form field: '+' is %2B)"
      : "",
    repairs.includes("line_breaks_removed")
      ? "line breaks were removed (send the Base64 on one line, without MIME wrapping)"
      : "",
  ].filter(Boolean).join("; ");
  return {
    value,
    warning: {
      path: SIGNED_REQUEST_FIELD,
      code: "signed_request_repaired",
      message: `${SIGNED_REQUEST_FIELD} was repaired before verifying: ${what}`,
      repairs,
    },
  };
}

/** Signing lives with the other HMACs; re-exported for the launch's callers and tests. */
export { hmacBase64, signPayload } from "../crypto/hmac.ts";

/**
 * The 401 of a signature that matches none of `keys`, with a `hint`: the likeliest cause
 * (signature_hint.ts; the same diagnosis the Inspector gives).
 */
function invalidSignature(raw: string, keys: string[]): AppError {
  const err = new AppError(401, "invalid_signature", "Invalid signature");
  err.extra = { hint: signatureHints(raw, keys)[0] };
  return err;
}

/** The 400 of a payload that is Base64 (and UTF-8) but not JSON: where the JSON breaks. */
function invalidPayloadJson(text: string): AppError {
  const { line, column } = jsonErrorPosition(text);
  const message = `The payload is Base64 but not JSON: it breaks at line ${line}, column ${column}`;
  const e = new AppError(400, "invalid_payload_json", message, [
    { path: SIGNED_REQUEST_FIELD, code: "invalid_json", message: `line ${line}, column ${column}` },
  ]);
  e.extra = { line, column };
  return e;
}

// The HMAC key of each API key verified with, made once (the API key as its UTF-8 bytes).
const launchKey = keptHmacKeys((apiKey) => new HmacSha256Key(apiKey));

/**
 * Verifies `raw` with any of `keys` (constant-time comparison), then decodes the
 * payload: Base64 (either alphabet), UTF-8, a JSON object whose `algorithm` is HMACSHA256.
 * Throws AppError 400 (malformed) or 401 (signature).
 */
export function verifySignedRequest(
  given: string | undefined,
  keys: string[],
): VerifiedRequest {
  if (given === undefined || given.trim() === "") {
    throw new AppError(
      400,
      "missing_signed_request",
      `The form field ${SIGNED_REQUEST_FIELD} is required`,
    );
  }
  const { value: raw, warning: repaired } = repairSignedRequest(given);
  const dot = raw.indexOf(".");
  if (dot <= 0 || dot === raw.length - 1) {
    throw new AppError(
      400,
      "malformed_signed_request",
      `${SIGNED_REQUEST_FIELD} must be <signature>.<encoded_payload>`,
    );
  }
  // Every key is tried (no early exit), so the time taken does not say which one matched. The
  // signature is decoded and the payload segment checked once for all of them.
  const parts = signedParts(raw);
  let keyIndex = -1;
  for (const [i, key] of keys.entries()) {
    if (parts && partsMatch(parts, launchKey(key)) && keyIndex < 0) keyIndex = i;
  }
  if (!parts || keyIndex < 0) throw invalidSignature(raw, keys);

  const encodedPayload = parts.encodedPayload;
  const bytes = decodeBase64(encodedPayload);
  let payload: unknown;
  let payloadText: string;
  try {
    if (!bytes) throw new Error("not Base64");
    payloadText = STRICT_UTF8.decode(bytes);
  } catch {
    throw new AppError(
      400,
      "malformed_payload",
      "The payload segment must be Base64 of UTF-8 JSON text",
    );
  }
  if (jsonDepth(payloadText) > PAYLOAD_LIMITS.depth) {
    throw new AppError(
      400,
      "payload_too_deep",
      `The payload nests deeper than ${PAYLOAD_LIMITS.depth} levels`,
    );
  }
  try {
    payload = JSON.parse(payloadText);
  } catch {
    throw invalidPayloadJson(payloadText);
  }
  if (typeof payload !== "object" || payload === null || Array.isArray(payload)) {
    throw new AppError(400, "malformed_payload", "The payload must be a JSON object");
  }
  const algorithm = (payload as Record<string, unknown>).algorithm;
  if (algorithm !== ALGORITHM) {
    throw new AppError(
      400,
      "unsupported_algorithm",
      typeof algorithm === "string"
        ? `Unsupported algorithm: ${algorithm} (use ${ALGORITHM})`
        : `algorithm must be the string ${ALGORITHM}, not ${describeJson(algorithm)}`,
    );
  }
  return {
    encodedPayload,
    payloadText,
    payload: payload as Record<string, unknown>,
    repaired,
    signature: parts.signature.toHex(),
    keyIndex,
  };
}

/** What kind of JSON value `value` is, for a message (never the value: it may be anything). */
function describeJson(value: unknown): string {
  if (value === undefined) return "missing";
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value === "object" ? "an object" : `a ${typeof value}`;
}
