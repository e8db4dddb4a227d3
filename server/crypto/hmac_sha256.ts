/**
 * Synchronous HMAC-SHA256 (RFC 2104) for the hot paths: the launch's signature check
 * (server/launch/signed_request.ts) and callback signatures (server/callbacks/signing.ts); the
 * signature diagnosis (server/launch/signature_hint.ts) uses it too.
 *
 * It is node:crypto's SHA-256 run twice over the key's padded blocks, made once per key:
 * `H((K ⊕ opad) ‖ H((K ⊕ ipad) ‖ message))`. Deno's `createHmac` costs about 22 µs a call
 * whatever the message's length (its object's setup), this 12 µs; Web Crypto's `sign` is an async
 * operation that cost more of the main thread still (docs/performance.md). The tests hold it to
 * RFC 4231's vectors and to `createHmac` on random keys and messages.
 */
import { createHash } from "node:crypto";
import { setBounded } from "../bounded_map.ts";

/** SHA-256's block size in bytes: longer keys are hashed first (RFC 2104 §2). */
const BLOCK = 64;
const encoder = new TextEncoder();

/** An HMAC-SHA256 key, its two padded blocks made once. */
export class HmacSha256Key {
  readonly #inner: Uint8Array;
  readonly #outer: Uint8Array;

  /** `key`: raw bytes, or text taken as its UTF-8 bytes. */
  constructor(key: Uint8Array | string) {
    let bytes = typeof key === "string" ? encoder.encode(key) : key;
    if (bytes.length > BLOCK) bytes = new Uint8Array(createHash("sha256").update(bytes).digest());
    this.#inner = new Uint8Array(BLOCK);
    this.#outer = new Uint8Array(BLOCK);
    for (let i = 0; i < BLOCK; i++) {
      const b = bytes[i] ?? 0;
      this.#inner[i] = b ^ 0x36;
      this.#outer[i] = b ^ 0x5c;
    }
  }

  /** The MAC of `message` (text as its UTF-8 bytes): 32 bytes, a plain Uint8Array. */
  mac(message: string | Uint8Array): Uint8Array {
    const inner = createHash("sha256").update(this.#inner).update(message).digest();
    const mac = createHash("sha256").update(this.#outer).update(inner).digest();
    // A view of the digest's bytes, not the Buffer itself (whose slice() shares, toString differs).
    return new Uint8Array(mac.buffer, mac.byteOffset, mac.length);
  }
}

/**
 * A bounded cache of HMAC keys by the secret they come from: `make` turns a secret into its key,
 * once. A service verifies or signs with the same few secrets again and again; when `size` are
 * kept, the one made longest ago goes (a Map iterates in insertion order). The secrets are
 * already held in memory by their own caches (server/crypto/secret_cache.ts, the app cache).
 */
export function keptHmacKeys(
  make: (secret: string) => HmacSha256Key,
  size = 64,
): (secret: string) => HmacSha256Key {
  const keys = new Map<string, HmacSha256Key>();
  return (secret) => {
    let key = keys.get(secret);
    if (!key) {
      key = make(secret);
      setBounded(keys, secret, key, size);
    }
    return key;
  };
}
