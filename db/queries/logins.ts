/** SQL of logins (portal and admin): random tokens stored as SHA-256 hashes. */
import type { Sql, Tx } from "../mod.ts";

/** The user a live login belongs to. */
export interface LoginRow {
  userId: number;
  role: "agent" | "admin";
  email: string;
  firstName: string;
  lastName: string;
  /**
   * The login's locale (docs/portal.md, "Language"): what its launch or sign-in set, or the
   * language menu chose; for a login without one, the user's profile locale.
   */
  locale: string | null;
  /** The launch that created this login (its restrictions apply); null for a password sign-in. */
  launchId: number | null;
}

/** Which side a login belongs to: the agent portal or the admin screens. */
export type LoginKind = "portal" | "admin";

/**
 * The launch and session of a live portal login that a launch created (the continue page's:
 * server/launch/continue.tsx), or null for any other token.
 */
export async function launchOfLogin(
  sql: Sql,
  tokenHash: string,
): Promise<{ launchId: number; sessionId: number } | null> {
  const [row] = await sql<{ launchId: number; sessionId: number }[]>`
    select l.launch_id, la.session_id
    from logins l join users u on u.id = l.user_id join launches la on la.id = l.launch_id
    where l.token_hash = ${tokenHash} and l.kind = 'portal' and l.expires_at > now()
      and u.disabled_at is null and la.session_id is not null
  `;
  return row ?? null;
}

/** Finds the live login of a token hash, of the given kind only. */
export async function findLogin(
  sql: Sql,
  tokenHash: string,
  kind: LoginKind,
): Promise<LoginRow | null> {
  const [row] = await sql<LoginRow[]>`
    select u.id as user_id, u.role, u.email, u.first_name, u.last_name,
      coalesce(l.locale, u.locale) as locale, l.launch_id
    from logins l join users u on u.id = l.user_id
    where l.token_hash = ${tokenHash} and l.kind = ${kind} and l.expires_at > now()
      and u.disabled_at is null
  `;
  return row ?? null;
}

/**
 * Stores a login (the token's hash). A portal login speaks the user's profile locale (English
 * when it has none) until its language menu changes it; an admin login follows the profile.
 */
export async function insertLogin(
  sql: Sql | Tx,
  v: { tokenHash: string; userId: number; expiresAt: Date; kind: LoginKind },
): Promise<void> {
  await sql`
    insert into logins (token_hash, user_id, expires_at, kind, locale)
    select ${v.tokenHash}::text, u.id, ${v.expiresAt}::timestamptz, ${v.kind}::text,
      case when ${v.kind}::text = 'portal' then coalesce(u.locale, 'en') end
    from users u where u.id = ${v.userId}
  `;
}

/** Sets the locale of one live login (the portal's language menu); other logins keep theirs. */
export async function setLoginLocale(
  sql: Sql,
  q: { tokenHash: string; locale: string },
): Promise<void> {
  await sql`
    update logins set locale = ${q.locale}
    where token_hash = ${q.tokenHash} and kind = 'portal' and expires_at > now()
  `;
}

/** Ends a login. */
export async function deleteLogin(sql: Sql, tokenHash: string): Promise<void> {
  await sql`delete from logins where token_hash = ${tokenHash}`;
}

/** An account a password sign-in may be for: its user id, password hash and organization. */
export interface SignInCandidate {
  id: number;
  passwordHash: string | null;
  organizationId: number;
}

/**
 * The enabled users of `role` with this e-mail who may sign in with a password, oldest
 * organization first, at most `limit`. An administrator is global (at most one, whatever
 * `organization`); an agent is looked up in the organization of slug `organization` (at most
 * one), or in every organization when it is null. A disabled user is no such user: the sign-in
 * answers as for an unknown account.
 */
export async function signInCandidates(
  sql: Sql,
  q: { email: string; role: "agent" | "admin"; organization: string | null; limit: number },
): Promise<SignInCandidate[]> {
  const inOrganization = q.role === "agent" && q.organization !== null
    ? sql`and u.organization_id = (select id from organizations where slug = ${q.organization})`
    : sql``;
  return await sql<SignInCandidate[]>`
    select u.id, u.password_hash, u.organization_id from users u
    where lower(u.email) = lower(${q.email}) and u.role = ${q.role} and u.disabled_at is null
      ${inOrganization}
    order by u.organization_id, u.id
    limit ${q.limit}
  `;
}
