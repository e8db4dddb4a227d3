/**
 * The keys a launch for an app is verified with: the API key (or, for OAuth apps, the consumer
 * secret), and during a rotation's overlap the previous one too. Decrypted keys are kept in memory
 * by their sealed text, so a launch costs no AES-GCM decrypt; a rotated key has a new sealed text,
 * so the cache never serves an old key.
 */
import type { LaunchApp } from "../../db/queries/launch.ts";
import type { Deps } from "../deps.ts";
import { secretContext } from "../crypto/secret_box.ts";

const MAX_CACHED = 1000;
const caches = new WeakMap<Deps, Map<string, Promise<string>>>();

/** A signing key and which one it is. */
export interface SigningKey {
  key: string;
  which: "current" | "previous";
}

function decrypted(deps: Deps, sealed: string, context: string): Promise<string> {
  let cache = caches.get(deps);
  if (!cache) caches.set(deps, cache = new Map());
  let key = cache.get(sealed);
  if (!key) {
    key = deps.secrets.decrypt(sealed, context);
    key.catch(() => cache.delete(sealed));
    cache.set(sealed, key);
    if (cache.size > MAX_CACHED) cache.delete(cache.keys().next().value!);
  }
  return key;
}

/** What the keys are read from (an app row of the launch or of the admin). */
export type KeyedApp =
  & Pick<LaunchApp, "id" | "authType" | "apiKeySealed" | "consumerSecretSealed">
  & Partial<
    Pick<
      LaunchApp,
      "apiKeyPreviousSealed" | "consumerSecretPreviousSealed" | "previousKeyExpiresAt"
    >
  >;

/** The app's live signing keys at `now`, decrypted: the current one, then the previous one. */
export async function signingKeys(
  deps: Deps,
  app: KeyedApp,
  now = new Date(),
): Promise<SigningKey[]> {
  const signed = app.authType === "signed_request";
  const current = signed ? app.apiKeySealed : app.consumerSecretSealed;
  const previous = signed ? app.apiKeyPreviousSealed : app.consumerSecretPreviousSealed;
  const context = secretContext(app.id, signed ? "api_key" : "consumer_secret");
  const keys: SigningKey[] = [];
  if (current) keys.push({ key: await decrypted(deps, current, context), which: "current" });
  if (previous && app.previousKeyExpiresAt && app.previousKeyExpiresAt > now) {
    keys.push({ key: await decrypted(deps, previous, context), which: "previous" });
  }
  return keys;
}
