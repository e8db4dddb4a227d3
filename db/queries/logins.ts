/** SQL of logins (portal and admin): random tokens stored as SHA-256 hashes. */
import type { Sql, Tx } from "../mod.ts";

/** The user a live login belongs to. */
export interface LoginRow {
  userId: number;
  role: "agent" | "admin";
  email: string;
  firstName: string;
  lastName: string;
  locale: string | null;
  /** The launch that created this login (its restrictions apply); null for a password sign-in. */
  launchId: number | null;
}

/** Which side a login belongs to: the agent portal or the admin screens. */
export type LoginKind = "portal" | "admin";

/** Finds the live login of a token hash, of the given kind only. */
export async function findLogin(
  sql: Sql,
  tokenHash: string,
  kind: LoginKind,
): Promise<LoginRow | null> {
  const [row] = await sql<LoginRow[]>`
    select u.id as user_id, u.role, u.email, u.first_name, u.last_name, u.locale, l.launch_id
    from logins l join users u on u.id = l.user_id
    where l.token_hash = ${tokenHash} and l.kind = ${kind} and l.expires_at > now()
      and u.disabled_at is null
  `;
  return row ?? null;
}

/** Stores a login (the token's hash). */
export async function insertLogin(
  sql: Sql | Tx,
  v: { tokenHash: string; userId: number; expiresAt: Date; kind: LoginKind },
): Promise<void> {
  await sql`
    insert into logins (token_hash, user_id, expires_at, kind)
    values (${v.tokenHash}, ${v.userId}, ${v.expiresAt}, ${v.kind})
  `;
}

/** Ends a login. */
export async function deleteLogin(sql: Sql, tokenHash: string): Promise<void> {
  await sql`delete from logins where token_hash = ${tokenHash}`;
}

/**
 * The user with this e-mail and role who may sign in with a password, or null (a disabled user
 * is no such user: the sign-in answers as for an unknown account).
 */
export async function userForPasswordLogin(
  sql: Sql,
  email: string,
  role: "agent" | "admin",
): Promise<{ id: number; passwordHash: string | null } | null> {
  const [row] = await sql<{ id: number; passwordHash: string | null }[]>`
    select id, password_hash from users
    where lower(email) = lower(${email}) and role = ${role} and disabled_at is null
  `;
  return row ?? null;
}
