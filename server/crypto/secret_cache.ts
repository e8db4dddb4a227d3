/**
 * Opened app secrets (signing keys, callback secrets) kept in memory, so a launch or a callback
 * delivery costs no AES-GCM decrypt. The cache key is the context and the sealed text: a rotated
 * secret has a new sealed text, so an old one is never served, and a sealed value copied into
 * another app's row or field still does not open there (secret_box.ts binds it to its context).
 */
import type { SecretBox } from "./secret_box.ts";
import { setBounded } from "../bounded_map.ts";

/** Opened secrets kept per secret box; the oldest is dropped past this many. */
export const MAX_CACHED_SECRETS = 1000;
const caches = new WeakMap<SecretBox, Map<string, Promise<string>>>();

/** `box.decrypt(sealed, context)`, remembered; a failure is not remembered. */
export function openCached(box: SecretBox, sealed: string, context: string): Promise<string> {
  let cache = caches.get(box);
  if (!cache) caches.set(box, cache = new Map());
  const key = `${context}\n${sealed}`;
  let plain = cache.get(key);
  if (!plain) {
    plain = box.decrypt(sealed, context);
    plain.catch(() => cache.delete(key));
    setBounded(cache, key, plain, MAX_CACHED_SECRETS);
  }
  return plain;
}
