/** SQL of the administrators' user and team screens. */
import type { Sql, Tx } from "../mod.ts";
import type { UserFields } from "./users.ts";

/** A user as the admin screens list it. */
export interface AdminUserRow extends UserFields {
  id: number;
  role: "agent" | "admin";
  hasPassword: boolean;
  /** When an administrator disabled the user; null while enabled. */
  disabledAt: Date | null;
  teamIds: number[];
  teamNames: string[];
}

const userColumns = (sql: Sql | Tx) =>
  sql`u.id, u.role, u.external_id, u.email, u.first_name, u.last_name, u.phone, u.locale,
    (u.password_hash like 'pbkdf2-sha256$%') as has_password, u.disabled_at,
    array(select m.team_id from team_members m where m.user_id = u.id order by m.team_id)
      as team_ids,
    array(select t.name from team_members m join teams t on t.id = m.team_id
      where m.user_id = u.id order by t.name) as team_names`;

/** Users matching `q` (e-mail, names or external id), newest first, before `beforeId`. */
export async function searchUsers(
  sql: Sql,
  f: { q?: string; role?: "agent" | "admin"; beforeId?: number },
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

/** Makes the user's teams exactly `teamIds`. */
export async function setUserTeams(tx: Tx, userId: number, teamIds: number[]): Promise<void> {
  await tx`
    with gone as (
      delete from team_members where user_id = ${userId}
        and team_id <> all(${teamIds}::bigint[])
      returning 1
    )
    insert into team_members (team_id, user_id)
    select t.id, ${userId} from teams t where t.id = any(${teamIds}::bigint[])
    on conflict do nothing
  `;
}

/** A team with its member count. */
export interface TeamRow {
  id: number;
  teamId: string;
  name: string;
  members: number;
}

/** Every team by name. */
export async function listTeams(sql: Sql): Promise<TeamRow[]> {
  return await sql<TeamRow[]>`
    select t.id, t.team_id, t.name,
      (select count(*) from team_members m where m.team_id = t.id)::int as members
    from teams t order by t.name, t.team_id
  `;
}

/** Creates a team; null when the teamId is taken. */
export async function insertTeam(sql: Sql, teamId: string, name: string): Promise<number | null> {
  const [row] = await sql<{ id: number }[]>`
    insert into teams (team_id, name) values (${teamId}, ${name})
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
