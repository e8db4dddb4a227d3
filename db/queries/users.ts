/** SQL for users (agents and administrators). */
import type { Tx } from "../mod.ts";

/** A user's own fields: what a launch writes for an agent, and every user listing shows. */
export interface UserFields {
  externalId: string | null;
  email: string;
  firstName: string;
  lastName: string;
  phone: string | null;
  locale: string | null;
}

/** A stored user. */
export interface UserRow extends UserFields {
  id: number;
  role: "agent" | "admin";
  passwordHash: string | null;
  disabledAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

/**
 * Creates an administrator, or sets the password of the administrator with that e-mail.
 * Administrators are global: an agent with the same e-mail (in any organization) stays an agent,
 * and no launch can log in as that e-mail any more.
 */
export async function upsertAdmin(
  tx: Tx,
  values: { email: string; passwordHash: string; firstName: string; lastName: string },
): Promise<UserRow> {
  const [row] = await tx<UserRow[]>`
    insert into users (role, email, first_name, last_name, password_hash)
    values ('admin', ${values.email}, ${values.firstName}, ${values.lastName},
      ${values.passwordHash})
    on conflict (lower(email)) where role = 'admin' do update set
      password_hash = excluded.password_hash,
      updated_at = now()
    returning *
  `;
  return row;
}

/** The administrator with this e-mail (case-insensitive), or null. */
export async function findAdminByEmail(tx: Tx, email: string): Promise<UserRow | null> {
  const [row] = await tx<UserRow[]>`
    select * from users where role = 'admin' and lower(email) = lower(${email})
  `;
  return row ?? null;
}

/** Sets an agent's password hash; false when no agent has that id. */
export async function setAgentPassword(tx: Tx, id: number, passwordHash: string): Promise<boolean> {
  const rows = await tx`
    update users set password_hash = ${passwordHash}, updated_at = now()
    where id = ${id} and role = 'agent'
    returning id
  `;
  return rows.length > 0;
}

/** Locks the enabled administrators' rows (for a change that must leave one) and lists them. */
export async function lockEnabledAdmins(tx: Tx): Promise<number[]> {
  const rows = await tx<{ id: number }[]>`
    select id from users where role = 'admin' and disabled_at is null order by id for update
  `;
  return rows.map((r) => Number(r.id));
}

/**
 * Disables or enables a user; null when no user has that id. Disabling keeps the first
 * disabled_at and, through the users trigger, deletes the user's logins and reset links in the
 * same statement; `loginsEnded` counts the live logins it ended.
 */
export async function setUserDisabled(
  tx: Tx,
  id: number,
  disabled: boolean,
): Promise<{ loginsEnded: number } | null> {
  const [row] = await tx<{ loginsEnded: number }[]>`
    with live as (
      select count(*)::int as n from logins where user_id = ${id} and expires_at > now()
    )
    update users u set
      disabled_at = case when ${disabled} then coalesce(u.disabled_at, now()) end,
      updated_at = now()
    where u.id = ${id}
    returning case when ${disabled} then (select n from live) else 0 end as logins_ended
  `;
  return row ?? null;
}
