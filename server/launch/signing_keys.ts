/** The keys a launch for an app is signed with: the API key, or the consumer secret (OAuth apps). */
import type { AppRow } from "../../db/queries/apps.ts";
import type { Deps } from "../deps.ts";

/** The app's signing keys, decrypted. */
export async function signingKeys(deps: Deps, app: AppRow): Promise<string[]> {
  const sealed = app.authType === "signed_request" ? app.apiKeySealed : app.consumerSecretSealed;
  return sealed ? [await deps.secrets.decrypt(sealed)] : [];
}
