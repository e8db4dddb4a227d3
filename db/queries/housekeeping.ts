/** SQL of the periodic clean-up: rows whose time is over. Safe when several processes run it. */
import type { Sql } from "../mod.ts";

/** Deletes sign-in attempt counters idle for a day (their window is far shorter). */
export async function deleteIdleSignInAttempts(sql: Sql): Promise<number> {
  const rows = await sql`delete from sign_in_attempts
    where last_attempt_at < now() - interval '1 day' returning 1`;
  return rows.length;
}

/** Deletes used launch nonces past their expiry; returns how many. */
export async function deleteExpiredNonces(sql: Sql): Promise<number> {
  const rows = await sql`delete from launch_nonces where expires_at < now() returning 1`;
  return rows.length;
}

/** Deletes portal and admin logins that expired; returns how many. */
export async function deleteExpiredLogins(sql: Sql): Promise<number> {
  const rows = await sql`delete from logins where expires_at < now() returning 1`;
  return rows.length;
}

/** Erases the personal data of launch-log records older than `days` (payload, address, agent). */
export async function eraseLaunchPersonalData(sql: Sql, days: number): Promise<number> {
  const rows = await sql`
    update launches set payload = null, client_address = null, user_agent = null
    where created_at < now() - make_interval(days => ${days})
      and (payload is not null or client_address is not null or user_agent is not null)
    returning 1
  `;
  return rows.length;
}

/** Deletes launch-log records older than `days`. */
export async function deleteOldLaunches(sql: Sql, days: number): Promise<number> {
  const rows = await sql`
    delete from launches where created_at < now() - make_interval(days => ${days}) returning 1
  `;
  return rows.length;
}
