/**
 * Standard Webhooks signing (https://www.standardwebhooks.com/): `webhook-signature` holds
 * `v1,<Base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>">`, keyed by the Base64
 * bytes after `whsec_`. During a secret rotation both signatures are sent, space-separated, so a
 * receiver with either secret verifies.
 */
import { decodeBase64, encodeBase64 } from "../crypto/base64.ts";
import { randomBytes } from "../crypto/random_token.ts";
import { HmacSha256Key, keptHmacKeys } from "../crypto/hmac_sha256.ts";
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
// same one or two secrets. The secrets themselves are already held opened
// (server/crypto/secret_cache.ts).
const signingKey = keptHmacKeys((secret) => new HmacSha256Key(keyBytes(secret)));

/**
 * `v1,<signature>` of one message under one secret. The synchronous HMAC of
 * server/crypto/hmac_sha256.ts, as the launch's verification uses: Web Crypto's importKey and
 * sign are async operations that cost about 57 µs of the main thread per delivered event
 * (docs/performance.md).
 */
function signMessage(
  secret: string,
  webhookId: string,
  timestampSeconds: number,
  body: string,
): string {
  return "v1," + encodeBase64(signingKey(secret).mac(`${webhookId}.${timestampSeconds}.${body}`));
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
