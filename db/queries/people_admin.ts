/** SQL of the administrators' user and team screens. */
import type { Sql, Tx } from "../mod.ts";
import type { UserFields } from "./users.ts";

/** A user as the admin screens list it. */
export interface AdminUserRow extends UserFields {
  id: number;
  role: "agent" | "admin";
  /** The agent's organization; an administrator's is `default` and means nothing. */
  organizationId: number;
  /** The slug of the agent's organization; null for an administrator (they are global). */
  organization: string | null;
  hasPassword: boolean;
  /** When an administrator disabled the user; null while enabled. */
  disabledAt: Date | null;
  teamIds: number[];
  teamNames: string[];
}

const userColumns = (sql: Sql | Tx) =>
  sql`u.id, u.role, u.organization_id,
    case when u.role = 'agent' then
      (select o.slug from organizations o where o.id = u.organization_id) end as organization,
    u.external_id, u.email, u.first_name, u.last_name, u.phone, u.locale,
    (u.password_hash like 'pbkdf2-sha256$%') as has_password, u.disabled_at,
    array(select m.team_id from team_members m where m.user_id = u.id order by m.team_id)
      as team_ids,
    array(select t.name from team_members m join teams t on t.id = m.team_id
      where m.user_id = u.id order by t.name) as team_names`;

/** The filters of the users list. */
export interface UserSearch {
  /** Part of an e-mail, a name or an external id. */
  q?: string;
  role?: "agent" | "admin";
  /** Only agents of this organization (administrators belong to none). */
  organizationId?: number;
  /** Keyset: users with a smaller id (the list runs newest first). */
  beforeId?: number;
}

/** Users matching the search, newest first. */
export async function searchUsers(
  sql: Sql,
  f: UserSearch,
  limit: number,
): Promise<AdminUserRow[]> {
  const like = f.q ? `%${f.q.replace(/[\\%_]/g, (c) => `\\${c}`)}%` : null;
  return await sql<AdminUserRow[]>`
    select ${userColumns(sql)} from users u
    where true
      ${
    like
      ? sql`and (u.email ilike ${like} or u.first_name ilike ${like}
          or u.last_name ilike ${like} or u.external_id ilike ${like})`
      : sql``
  }
      ${f.role ? sql`and u.role = ${f.role}` : sql``}
      ${
    f.organizationId !== undefined
      ? sql`and u.role = 'agent' and u.organization_id = ${f.organizationId}`
      : sql``
  }
      ${f.beforeId !== undefined ? sql`and u.id < ${f.beforeId}` : sql``}
    order by u.id desc limit ${limit}
  `;
}

/** One user, or null. */
export async function adminUserById(sql: Sql | Tx, id: number): Promise<AdminUserRow | null> {
  const [row] = await sql<AdminUserRow[]>`select ${
    userColumns(sql)
  } from users u where u.id = ${id}`;
  return row ?? null;
}

/** Updates a user's profile; null when no such user. Throws on a duplicate e-mail. */
export async function updateUserProfile(
  tx: Tx,
  id: number,
  v: {
    email: string;
    firstName: string;
    lastName: string;
    phone: string | null;
    locale: string | null;
  },
): Promise<boolean> {
  const rows = await tx`
    update users set email = ${v.email}, first_name = ${v.firstName}, last_name = ${v.lastName},
      phone = ${v.phone}, locale = ${v.locale}, updated_at = now()
    where id = ${id} returning id
  `;
  return rows.length > 0;
}

/** Makes the user's teams exactly `teamIds`, of the teams of the user's organization. */
export async function setUserTeams(tx: Tx, userId: number, teamIds: number[]): Promise<void> {
  await tx`
    with gone as (
      delete from team_members where user_id = ${userId}
        and team_id <> all(${teamIds}::bigint[])
      returning 1
    )
    insert into team_members (team_id, user_id)
    select t.id, ${userId} from teams t
    where t.id = any(${teamIds}::bigint[])
      and t.organization_id = (select u.organization_id from users u where u.id = ${userId})
    on conflict do nothing
  `;
}

/** A team with its member count. */
export interface TeamRow {
  id: number;
  organizationId: number;
  /** The slug of the team's organization. */
  organization: string;
  teamId: string;
  name: string;
  members: number;
}

/** Every team by name, or the teams of one organization. */
export async function listTeams(sql: Sql, organizationId?: number): Promise<TeamRow[]> {
  return await sql<TeamRow[]>`
    select t.id, t.organization_id, o.slug as organization, t.team_id, t.name,
      (select count(*) from team_members m where m.team_id = t.id)::int as members
    from teams t join organizations o on o.id = t.organization_id
    ${organizationId !== undefined ? sql`where t.organization_id = ${organizationId}` : sql``}
    order by t.name, t.team_id, o.slug
  `;
}

/** Creates a team in an organization; null when the organization has a team with this teamId. */
export async function insertTeam(
  sql: Sql | Tx,
  v: { organizationId: number; teamId: string; name: string },
): Promise<number | null> {
  const [row] = await sql<{ id: number }[]>`
    insert into teams (organization_id, team_id, name)
    values (${v.organizationId}, ${v.teamId}, ${v.name})
    on conflict (organization_id, team_id) do nothing returning id
  `;
  return row?.id ?? null;
}

/** Renames a team; false when there is no such team. */
export async function renameTeam(sql: Sql, id: number, name: string): Promise<boolean> {
  const rows = await sql`update teams set name = ${name}, updated_at = now() where id = ${id}
    returning id`;
  return rows.length > 0;
}

/** Deletes a team (its memberships go with it); false when there is no such team. */
export async function deleteTeam(sql: Sql, id: number): Promise<boolean> {
  const rows = await sql`delete from teams where id = ${id} returning id`;
  return rows.length > 0;
}
