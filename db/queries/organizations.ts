/** SQL of organizations: the companies that own apps, agents and teams. */
import type { Sql, Tx } from "../mod.ts";

/** The organization every deployment has (id 1): it cannot be deleted. */
export const DEFAULT_ORGANIZATION = { id: 1, slug: "default" } as const;

/** A stored organization. */
export interface OrganizationRow {
  id: number;
  slug: string;
  name: string;
  createdAt: Date;
  updatedAt: Date;
}

/** An organization with how many apps, agents and teams it owns. */
export interface OrganizationSummary extends OrganizationRow {
  apps: number;
  agents: number;
  teams: number;
}

/** Every organization by slug. */
export async function listOrganizations(sql: Sql | Tx): Promise<OrganizationRow[]> {
  return await sql<OrganizationRow[]>`
    select id, slug, name, created_at, updated_at from organizations order by slug
  `;
}

/** Every organization by slug, with its counts of apps, agents and teams. */
export async function organizationSummaries(sql: Sql): Promise<OrganizationSummary[]> {
  return await sql<OrganizationSummary[]>`
    select o.id, o.slug, o.name, o.created_at, o.updated_at,
      (select count(*) from apps a where a.organization_id = o.id)::int as apps,
      (select count(*) from users u where u.organization_id = o.id and u.role = 'agent')::int
        as agents,
      (select count(*) from teams t where t.organization_id = o.id)::int as teams
    from organizations o order by o.slug
  `;
}

/**
 * The organization with this slug, or null. `keep` (inside a transaction) holds off its deletion
 * until the transaction ends, so what is written into it next cannot lose its organization.
 */
export async function findOrganization(
  sql: Sql | Tx,
  slug: string,
  keep = false,
): Promise<OrganizationRow | null> {
  const [row] = await sql<OrganizationRow[]>`
    select id, slug, name, created_at, updated_at from organizations where slug = ${slug}
    ${keep ? sql`for key share` : sql``}
  `;
  return row ?? null;
}

/** Creates an organization; null when the slug is taken. */
export async function insertOrganization(
  sql: Sql | Tx,
  v: { slug: string; name: string },
): Promise<OrganizationRow | null> {
  const [row] = await sql<OrganizationRow[]>`
    insert into organizations (slug, name) values (${v.slug}, ${v.name})
    on conflict (slug) do nothing
    returning id, slug, name, created_at, updated_at
  `;
  return row ?? null;
}

/** Renames an organization; null when there is none with this slug. */
export async function renameOrganization(
  sql: Sql | Tx,
  slug: string,
  name: string,
): Promise<OrganizationRow | null> {
  const [row] = await sql<OrganizationRow[]>`
    update organizations set name = ${name}, updated_at = now() where slug = ${slug}
    returning id, slug, name, created_at, updated_at
  `;
  return row ?? null;
}

/**
 * Locks the organization for deletion and counts its apps; null when there is none with this
 * slug. The lock waits for writes that reference it (an app created in it, a launch writing an
 * agent) and holds off new ones until the transaction ends.
 */
export async function lockOrganization(
  tx: Tx,
  slug: string,
): Promise<{ id: number; apps: number } | null> {
  const [row] = await tx<{ id: number; apps: number }[]>`
    select o.id, (select count(*) from apps a where a.organization_id = o.id)::int as apps
    from organizations o where o.slug = ${slug} for update
  `;
  return row ?? null;
}

/**
 * Deletes an organization with its agents and teams (their logins, memberships and external ids
 * go with them; sessions and launch records keep existing without them). The caller has checked,
 * under lockOrganization, that it owns no apps.
 */
export async function deleteOrganization(
  tx: Tx,
  id: number,
): Promise<{ agents: number; teams: number }> {
  const agents = await tx`
    delete from users where organization_id = ${id} and role = 'agent' returning 1
  `;
  const teams = await tx`delete from teams where organization_id = ${id} returning 1`;
  // An administrator's organization means nothing (they are global): it falls back to default.
  await tx`update users set organization_id = ${DEFAULT_ORGANIZATION.id}
    where organization_id = ${id} and role = 'admin'`;
  await tx`delete from organizations where id = ${id}`;
  return { agents: agents.length, teams: teams.length };
}
