/**
 * Why a signed_request did not verify: the one home of that diagnosis, used by the launch
 * endpoint (the `hint` of its `invalid_signature` answers, and the launch log) and by the
 * Inspector, which adds what only an administrator may learn (another app's key). Pure: no I/O.
 */
import { decodeBase64, encodeBase64 } from "../crypto/base64.ts";
import { HmacSha256Key } from "../crypto/hmac_sha256.ts";
import { signatureMatches } from "./signature_match.ts";

/** One likely cause: a stable code and what to do about it. */
export interface SignatureHint {
  code:
    | "spaces_not_encoded"
    | "payload_url_safe"
    | "payload_unpadded"
    | "payload_reserialized"
    | "signed_json"
    | "signature_hex"
    | "signature_not_base64"
    | "payload_not_base64"
    | "wrong_key";
  message: string;
}

function hint(code: SignatureHint["code"], message: string): SignatureHint {
  return { code, message };
}

/** True when `raw` verifies under one of `keys`. */
function anyKeyMatches(raw: string, keys: string[]): boolean {
  return keys.some((key) => signatureMatches(raw, key));
}

function sameBytes(a: Uint8Array | null, b: Uint8Array | null): boolean {
  return !!a && !!b && a.length === b.length && a.every((v, i) => v === b[i]);
}

/** The payload segment decoded as UTF-8 text, or null. */
export function payloadTextOf(encoded: string): string | null {
  const bytes = decodeBase64(encoded);
  if (!bytes) return null;
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return null;
  }
}

/**
 * The likely causes of a signature that matches none of `keys`, most specific first: variants a
 * host commonly sends by mistake, tried with the keys (so each names a cause for certain), then
 * the forms the service can tell without a key, else a wrong key. `raw` is `<sig>.<payload>`.
 */
export function signatureHints(raw: string, keys: string[]): SignatureHint[] {
  const dot = raw.indexOf(".");
  const sig = raw.slice(0, dot);
  const encoded = raw.slice(dot + 1);
  const payloadText = payloadTextOf(encoded);
  if (raw.includes(" ") && anyKeyMatches(raw.replaceAll(" ", "+"), keys)) {
    return [hint(
      "spaces_not_encoded",
      "'+' characters arrived as spaces: the form body was not percent-encoded. Encode the " +
        "value (URLSearchParams, encodeURIComponent) or submit a real HTML form.",
    )];
  }
  if (/[-_]/.test(encoded)) {
    const standard = encoded.replaceAll("-", "+").replaceAll("_", "/");
    const padded = standard + "=".repeat((4 - (standard.length % 4)) % 4);
    for (const candidate of [standard, padded]) {
      if (anyKeyMatches(`${sig}.${candidate}`, keys)) {
        return [hint(
          "payload_url_safe",
          "The payload was turned into URL-safe Base64 after signing. The HMAC covers the " +
            "exact payload text: send the standard Base64 text you signed.",
        )];
      }
    }
  }
  if (payloadText !== null) {
    const padded = encoded + "=".repeat((4 - (encoded.length % 4)) % 4);
    if (padded !== encoded && anyKeyMatches(`${sig}.${padded}`, keys)) {
      return [hint(
        "payload_unpadded",
        "The payload's '=' padding was removed after signing: send it as signed.",
      )];
    }
    try {
      const parsed = JSON.parse(payloadText);
      for (const json of [JSON.stringify(parsed), JSON.stringify(parsed, null, 2)]) {
        if (json !== payloadText && anyKeyMatches(`${sig}.${encodeBase64(json)}`, keys)) {
          return [hint(
            "payload_reserialized",
            "The payload was re-encoded after signing (its JSON was re-serialized). Sign the " +
              "exact Base64 text you send, and send it unchanged.",
          )];
        }
      }
    } catch { /* not JSON: reported elsewhere */ }
    const given = decodeBase64(sig);
    for (const key of keys) {
      const overJson = new HmacSha256Key(key).mac(payloadText);
      if (sameBytes(given, overJson)) {
        return [hint(
          "signed_json",
          "The HMAC was computed over the JSON text instead of its Base64 encoding (spec " +
            "§4.1 step 3: sign the Base64 text).",
        )];
      }
    }
  }
  // What the service tells without a key: the signature's and the payload's form.
  const forms: SignatureHint[] = [];
  const sigBytes = decodeBase64(sig);
  if (/^[0-9a-f]{64}$/i.test(sig)) {
    forms.push(hint(
      "signature_hex",
      "The signature looks hex-encoded: it must be Base64 of the 32 raw HMAC bytes.",
    ));
  } else if (!sigBytes || sigBytes.length !== 32) {
    const why = /%[0-9a-f]{2}/i.test(sig)
      ? "it is still percent-encoded (decode it once: it was encoded twice)"
      : /[-_]/.test(sig) && /[+/]/.test(sig)
      ? "it mixes the standard and the URL-safe Base64 alphabets"
      : !sigBytes
      ? "it is not Base64 in either alphabet, padded or not (wrong length, padding or characters)"
      : `it decodes to ${sigBytes.length} bytes, not 32`;
    forms.push(hint(
      "signature_not_base64",
      `The signature could not be decoded: ${why}. Send Base64 (standard or URL-safe, padded ` +
        "or not) of the 32 raw HMAC-SHA256 bytes.",
    ));
  }
  if (decodeBase64(encoded) === null) {
    forms.push(hint(
      "payload_not_base64",
      "The payload segment is not Base64 (standard or URL-safe, padded or not): send the " +
        "Base64 text of the JSON, as signed, without percent-encoding or line breaks.",
    ));
  }
  if (forms.length) return forms;
  return [hint(
    "wrong_key",
    "Wrong key: the signature does not match this app's API key (for oauth2_signed_request " +
      "apps, its Consumer Secret). Check the key the host signs with, or rotate and update it.",
  )];
}
