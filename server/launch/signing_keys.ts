/**
 * The keys a launch for an app is verified with: the API key (or, for OAuth apps, the consumer
 * secret), and during a rotation's overlap the previous one too, opened once and then kept in
 * memory (server/crypto/secret_cache.ts).
 */
import type { LaunchApp } from "../../db/queries/launch.ts";
import type { Deps } from "../deps.ts";
import { secretContext } from "../crypto/secret_box.ts";
import { openCached } from "../crypto/secret_cache.ts";

/** A signing key and which one it is. */
export interface SigningKey {
  key: string;
  which: "current" | "previous";
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
  if (current) {
    keys.push({ key: await openCached(deps.secrets, current, context), which: "current" });
  }
  if (previous && app.previousKeyExpiresAt && app.previousKeyExpiresAt > now) {
    keys.push({ key: await openCached(deps.secrets, previous, context), which: "previous" });
  }
  return keys;
}
