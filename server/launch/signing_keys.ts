/**
 * The keys a launch for an app is signed with: the API key, or the consumer secret (OAuth apps).
 * Decrypted keys are kept in memory by their sealed text, so a launch costs no AES-GCM decrypt;
 * a rotated key has a new sealed text, so the cache never serves an old key.
 */
import type { AppRow } from "../../db/queries/apps.ts";
import type { Deps } from "../deps.ts";

const MAX_CACHED = 1000;
const caches = new WeakMap<Deps, Map<string, Promise<string>>>();

/** The app's signing keys, decrypted. */
export async function signingKeys(deps: Deps, app: AppRow): Promise<string[]> {
  const sealed = app.authType === "signed_request" ? app.apiKeySealed : app.consumerSecretSealed;
  if (!sealed) return [];
  let cache = caches.get(deps);
  if (!cache) caches.set(deps, cache = new Map());
  let key = cache.get(sealed);
  if (!key) {
    key = deps.secrets.decrypt(sealed);
    key.catch(() => cache.delete(sealed));
    cache.set(sealed, key);
    if (cache.size > MAX_CACHED) cache.delete(cache.keys().next().value!);
  }
  return [await key];
}
