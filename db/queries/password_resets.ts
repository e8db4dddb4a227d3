/** SQL of password-reset links: one live link per user, single use, bound to its password. */
import type { Sql, Tx } from "../mod.ts";

/** An account a reset request is for, with its organization (an administrator's means nothing). */
export interface ResetAccount {
  id: number;
  email: string;
  firstName: string;
  locale: string | null;
  passwordHash: string | null;
  organizationName: string;
}

/**
 * The existing, enabled accounts of `role` a reset request names, oldest organization first, at
 * most `limit`: the administrator of the e-mail (global, whatever `organization`), or the agents
 * of the e-mail in the organization of slug `organization` (at most one) or, when it is null, in
 * every organization.
 */
export async function resetAccounts(
  sql: Sql,
  q: { email: string; role: "agent" | "admin"; organization: string | null; limit: number },
): Promise<ResetAccount[]> {
  const inOrganization = q.role === "agent" && q.organization !== null
    ? sql`and o.slug = ${q.organization}`
    : sql``;
  return await sql<ResetAccount[]>`
    select u.id, u.email, u.first_name, u.locale, u.password_hash, o.name as organization_name
    from users u join organizations o on o.id = u.organization_id
    where lower(u.email) = lower(${q.email}) and u.role = ${q.role} and u.disabled_at is null
      ${inOrganization}
    order by u.organization_id, u.id
    limit ${q.limit}
  `;
}

/** Stores a new link for the user; the user's older links stop working (a newer one wins). */
export async function insertReset(
  tx: Tx,
  v: { tokenHash: string; userId: number; passwordFingerprint: string; expiresAt: Date },
): Promise<void> {
  await tx`
    with superseded as (
      delete from password_resets where user_id = ${v.userId} returning 1
    )
    insert into password_resets (token_hash, user_id, password_fingerprint, expires_at)
    values (${v.tokenHash}, ${v.userId}, ${v.passwordFingerprint}, ${v.expiresAt})
  `;
}

/** A link with its account, when it is live: unused, unexpired, of that role. */
export interface LiveReset {
  userId: number;
  email: string;
  firstName: string;
  locale: string | null;
  passwordHash: string | null;
  passwordFingerprint: string;
}

/** The live link of a token hash (locked for the change in `tx`), or null. */
export async function liveReset(
  tx: Tx,
  tokenHash: string,
  role: "agent" | "admin",
  lock = false,
): Promise<LiveReset | null> {
  const [row] = lock
    ? await tx<LiveReset[]>`
      select r.user_id, u.email, u.first_name, u.locale, u.password_hash, r.password_fingerprint
      from password_resets r join users u on u.id = r.user_id
      where r.token_hash = ${tokenHash} and r.used_at is null and r.expires_at > now()
        and u.role = ${role} and u.disabled_at is null
      for update of r`
    : await tx<LiveReset[]>`
      select r.user_id, u.email, u.first_name, u.locale, u.password_hash, r.password_fingerprint
      from password_resets r join users u on u.id = r.user_id
      where r.token_hash = ${tokenHash} and r.used_at is null and r.expires_at > now()
        and u.role = ${role} and u.disabled_at is null`;
  return row ?? null;
}

/** Marks the link used and sets the new password (the users trigger ends every login). */
export async function useReset(
  tx: Tx,
  v: { tokenHash: string; userId: number; passwordHash: string },
): Promise<void> {
  await tx`
    with used as (
      update password_resets set used_at = now() where token_hash = ${v.tokenHash} returning 1
    )
    update users set password_hash = ${v.passwordHash}, updated_at = now()
    where id = ${v.userId}
  `;
}

/** Deletes links that expired or were used more than a day ago (housekeeping). */
export async function deleteOldResets(sql: Sql): Promise<number> {
  const rows = await sql`
    delete from password_resets
    where expires_at < now() - interval '1 day' or used_at < now() - interval '1 day'
    returning 1
  `;
  return rows.length;
}
