/**
 * Signing-key rotation with an overlap: the new key verifies at once, the previous one keeps
 * verifying until its expiry (default a week; 0 revokes it at once), so launches signed with the
 * old key in flight never fail. Each launch-log record says which key verified it.
 */
import { secretContext } from "../crypto/secret_box.ts";
import { dropPreviousKey, findAppByName, replaceSigningKey } from "../../db/queries/apps.ts";
import type { SigningField } from "../../db/queries/apps.ts";
import { generateToken } from "../crypto/random_token.ts";
import type { Deps } from "../deps.ts";
import { AppError } from "../http/errors.ts";
import { inTransaction } from "../transaction.ts";

export type { SigningField };

/** How long the previous key verifies after a rotation, unless told otherwise: one week. */
export const DEFAULT_OVERLAP_SECONDS = 604_800;

/** The longest overlap: 30 days. */
export const MAX_OVERLAP_SECONDS = 2_592_000;

const FIELD_OF_TYPE = {
  signed_request: "api_key",
  oauth2_signed_request: "consumer_secret",
} as const;

/**
 * Replaces the app's signing secret (`field` must be the one its authentication type signs with)
 * with a generated one; the old one stays valid for `previousKeyValidSeconds`.
 */
export async function rotateKey(
  deps: Deps,
  appName: string,
  field: SigningField,
  previousKeyValidSeconds = DEFAULT_OVERLAP_SECONDS,
): Promise<{ secret: string; previousKeyExpiresAt: Date | null }> {
  return await inTransaction(deps, async ({ tx, after }) => {
    const app = await findAppByName(tx, appName);
    if (!app) throw new AppError(404, "app_not_found", `Unknown application: ${appName}`);
    if (FIELD_OF_TYPE[app.authType] !== field) {
      throw new AppError(
        409,
        "wrong_auth_type",
        field === "api_key"
          ? `${app.appName} signs with its consumer secret (oauth2_signed_request); it has no API key`
          : `${app.appName} signs with its API key (signed_request); it has no consumer secret`,
      );
    }
    const secret = generateToken(32);
    const previousKeyExpiresAt = previousKeyValidSeconds > 0
      ? new Date(Date.now() + previousKeyValidSeconds * 1000)
      : null;
    await replaceSigningKey(tx, app.id, {
      field,
      sealed: await deps.secrets.encrypt(secret, secretContext(app.id, field)),
      previousExpiresAt: previousKeyExpiresAt,
    });
    after.appsChanged();
    return { secret, previousKeyExpiresAt };
  });
}

/** Ends the overlap of the app's last rotation: only the current key verifies from now on. */
export async function endKeyOverlap(deps: Deps, appName: string): Promise<void> {
  await inTransaction(deps, async ({ tx, after }) => {
    const app = await findAppByName(tx, appName);
    if (!app) throw new AppError(404, "app_not_found", `Unknown application: ${appName}`);
    await dropPreviousKey(tx, app.id);
    after.appsChanged();
  });
}
