/**
 * The clean-up every serving process runs (`deno task start` and each `deno task serve` worker):
 * expired access tokens, launch nonces and logins are deleted every HOUSEKEEPING_MINUTES, and the
 * launch log loses its personal data after LAUNCH_LOG_PAYLOAD_DAYS and its records after
 * LAUNCH_LOG_RETENTION_DAYS, like delivered and failed callback events. Deletes of expired rows are idempotent, so several processes running
 * it at once is harmless.
 */
import type { Sql } from "../db/mod.ts";
import {
  deleteExpiredLogins,
  deleteExpiredNonces,
  deleteIdleSignInAttempts,
  deleteOldLaunches,
  eraseLaunchPersonalData,
} from "../db/queries/housekeeping.ts";
import type { Config } from "./config.ts";
import { deleteExpiredTokens } from "../db/queries/access_tokens.ts";
import { deleteOldEvents } from "../db/queries/callback_events.ts";
import { deleteOldResets } from "../db/queries/password_resets.ts";
import { deleteOldMail } from "../db/queries/mail_outbox.ts";
import { purgeRemote } from "../db/queries/remote.ts";
import { log } from "./log.ts";

/** How often the clean-up runs. */
export const HOUSEKEEPING_MINUTES = 15;

/** The retention settings of the launch log. */
export type Retention = Pick<Config, "launchLogPayloadDays" | "launchLogRetentionDays">;

/** Runs one clean-up pass; returns what it deleted or erased. */
export async function cleanUp(sql: Sql, retention: Retention): Promise<Record<string, number>> {
  return {
    tokens: await deleteExpiredTokens(sql),
    nonces: await deleteExpiredNonces(sql),
    logins: await deleteExpiredLogins(sql),
    signInAttempts: await deleteIdleSignInAttempts(sql),
    launchPersonalData: await eraseLaunchPersonalData(sql, retention.launchLogPayloadDays),
    launches: await deleteOldLaunches(sql, retention.launchLogRetentionDays),
    callbackEvents: await deleteOldEvents(sql, retention.launchLogRetentionDays),
    passwordResets: await deleteOldResets(sql),
    mail: await deleteOldMail(sql),
    remote: await purgeRemote(sql),
  };
}

/** Starts the periodic clean-up (first pass a minute after start); returns its stop function. */
export function startHousekeeping(sql: Sql, retention: Retention): () => void {
  const run = () => {
    cleanUp(sql, retention).then(
      (deleted) => log.debug("housekeeping", deleted),
      (err) => log.warn("housekeeping failed", { error: err.message }),
    );
  };
  const first = setTimeout(run, 60_000);
  const every = setInterval(run, HOUSEKEEPING_MINUTES * 60_000);
  Deno.unrefTimer(first);
  Deno.unrefTimer(every);
  return () => {
    clearTimeout(first);
    clearInterval(every);
  };
}
