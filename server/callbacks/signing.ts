/**
 * Standard Webhooks signing (https://www.standardwebhooks.com/): `webhook-signature` holds
 * `v1,<Base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>">`, keyed by the Base64
 * bytes after `whsec_`. During a secret rotation both signatures are sent, space-separated, so a
 * receiver with either secret verifies.
 */
import { decodeBase64, encodeBase64 } from "../crypto/base64.ts";
import { randomBytes } from "../crypto/random_token.ts";
import { createHmac, createSecretKey, type KeyObject } from "node:crypto";
import { SECRET_BYTES, SECRET_PREFIX, WEBHOOK_HEADERS } from "./contract.ts";

/** A new callback signing secret: `whsec_` + Base64 of 32 random bytes. */
export function generateCallbackSecret(): string {
  return SECRET_PREFIX + encodeBase64(randomBytes(SECRET_BYTES));
}

/** The key bytes of a `whsec_` secret; throws on any other shape. */
function keyBytes(secret: string): Uint8Array {
  const bytes = secret.startsWith(SECRET_PREFIX)
    ? decodeBase64(secret.slice(SECRET_PREFIX.length))
    : null;
  if (!bytes || bytes.length < 24) throw new Error("callback secret is not a whsec_ secret");
  return bytes;
}

// The HMAC key of each secret in use, made once: a worker signs every event of an app with the
// same one or two secrets. Bounded; the secrets themselves are already held opened
// (server/crypto/secret_cache.ts).
const KEYS_KEPT = 64;
const keys = new Map<string, KeyObject>();

function signingKey(secret: string): KeyObject {
  let key = keys.get(secret);
  if (!key) {
    key = createSecretKey(keyBytes(secret));
    // Full: the key made longest ago goes (a Map iterates in insertion order).
    if (keys.size >= KEYS_KEPT) keys.delete(keys.keys().next().value!);
    keys.set(secret, key);
  }
  return key;
}

/**
 * `v1,<signature>` of one message under one secret. node:crypto's synchronous HMAC, as the
 * launch's verification uses: Web Crypto's importKey and sign are async operations that cost
 * about 57 µs of the main thread per delivered event (docs/performance.md).
 */
function signMessage(
  secret: string,
  webhookId: string,
  timestampSeconds: number,
  body: string,
): string {
  return "v1," + createHmac("sha256", signingKey(secret))
    .update(`${webhookId}.${timestampSeconds}.${body}`)
    .digest("base64");
}

/** The three Standard Webhooks headers of one attempt, signed with every given secret. */
export function webhookHeaders(
  secrets: string[],
  webhookId: string,
  body: string,
  now = new Date(),
): Record<string, string> {
  const timestamp = Math.floor(now.getTime() / 1000);
  const signatures = secrets.map((secret) => signMessage(secret, webhookId, timestamp, body));
  return {
    [WEBHOOK_HEADERS.id]: webhookId,
    [WEBHOOK_HEADERS.timestamp]: String(timestamp),
    [WEBHOOK_HEADERS.signature]: signatures.join(" "),
  };
}
