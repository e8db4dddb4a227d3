/**
 * Moves every stored app secret to the current format and key at start: values of the first
 * format (no additional data) and values sealed under SECRET_KEY_PREVIOUS are opened and sealed
 * again with SECRET_KEY, bound to their app and field, in one transaction. After a start with both
 * keys set, SECRET_KEY_PREVIOUS can be removed.
 */
import type { Sql } from "../../db/mod.ts";
import { allSealedSecrets, type SealedColumn, updateSealed } from "../../db/queries/apps.ts";
import { type SecretBox, secretContext } from "../crypto/secret_box.ts";
import { log } from "../log.ts";

const COLUMNS: [
  SealedColumn,
  | "apiKeySealed"
  | "apiKeyPreviousSealed"
  | "consumerSecretSealed"
  | "consumerSecretPreviousSealed"
  | "callbackSecretSealed"
  | "callbackSecretPreviousSealed",
  "api_key" | "consumer_secret" | "callback_secret",
][] = [
  ["api_key_sealed", "apiKeySealed", "api_key"],
  ["api_key_previous_sealed", "apiKeyPreviousSealed", "api_key"],
  ["consumer_secret_sealed", "consumerSecretSealed", "consumer_secret"],
  ["consumer_secret_previous_sealed", "consumerSecretPreviousSealed", "consumer_secret"],
  ["callback_secret_sealed", "callbackSecretSealed", "callback_secret"],
  ["callback_secret_previous_sealed", "callbackSecretPreviousSealed", "callback_secret"],
];

/** Reseals what needs it; returns how many values were resealed. */
export async function resealSecrets(sql: Sql, secrets: SecretBox): Promise<number> {
  return await sql.begin(async (tx) => {
    let count = 0;
    for (const app of await allSealedSecrets(tx)) {
      for (const [column, property, field] of COLUMNS) {
        const sealed = app[property];
        const context = secretContext(Number(app.id), field);
        if (!sealed || !(await secrets.needsReseal(sealed, context))) continue;
        let plain: string;
        try {
          plain = await secrets.decrypt(sealed, context);
        } catch (err) {
          // Left as it is: the app's launches fail (and say why in the log) until it is fixed.
          log.error("a stored secret cannot be opened", {
            secret: context,
            error: (err as Error).message,
          });
          continue;
        }
        await updateSealed(tx, Number(app.id), column, await secrets.encrypt(plain, context));
        count++;
      }
    }
    return count;
  }) as number;
}
