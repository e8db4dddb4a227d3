/** SQL of the customer and agent resources (read-only). */
import type { Sql } from "../mod.ts";
import type { UserFields } from "./users.ts";

/** A customer. */
export interface CustomerRow {
  id: number;
  externalId: string | null;
  email: string;
  firstName: string;
  lastName: string;
  phone1: string | null;
  phone2: string | null;
  otherPhone: string | null;
  createdAt: Date;
  updatedAt: Date;
}

/** An agent with its teams. */
export interface AgentRow extends UserFields {
  id: number;
  /** The slug of the agent's organization. */
  organization: string;
  teams: { teamId: string; teamName: string }[];
  createdAt: Date;
  updatedAt: Date;
}

/** Which app's rows a caller reaches: every app's (`all`), or one app's (null: none). */
export type AppScope = { all: true } | { appId: number | null };

/** Filters of the customer and agent lists; `beforeId` is the keyset (newest first). */
export interface PeopleFilter {
  email?: string;
  externalId?: string;
  beforeId?: number;
  scope: AppScope;
  /** Only customers of this organization's apps; only agents of this organization. */
  organizationId?: number;
}

/** `and <column> = <the scope's app>` unless the scope is every app. */
function inScope(sql: Sql, column: string, scope: AppScope) {
  return "all" in scope ? sql`` : sql`and ${sql(column)} = ${scope.appId}`;
}

/**
 * The agents an app reaches: those of its organization who launched through it, or have its
 * external id (an app that moved keeps its launch log, not its former organization's agents).
 */
function agentInScope(sql: Sql, scope: AppScope) {
  return "all" in scope ? sql`` : sql`and u.organization_id = (
    select a.organization_id from apps a where a.id = ${scope.appId}
  ) and (
    exists (select 1 from agent_external_ids e where e.user_id = u.id and e.app_id = ${scope.appId})
    or exists (select 1 from launches l where l.agent_id = u.id and l.app_id = ${scope.appId})
  )`;
}

const customerColumns = (sql: Sql) =>
  sql`id, external_id, email, first_name, last_name, phone1, phone2, other_phone, created_at,
    updated_at`;

/** One customer in the scope, or null. */
export async function customerById(
  sql: Sql,
  id: number,
  scope: AppScope,
): Promise<CustomerRow | null> {
  const [row] = await sql<CustomerRow[]>`
    select ${customerColumns(sql)} from customers
    where id = ${id} ${inScope(sql, "app_id", scope)}
  `;
  return row ?? null;
}

/** A page of customers, newest first. */
export async function listCustomers(
  sql: Sql,
  f: PeopleFilter,
  limit: number,
): Promise<CustomerRow[]> {
  return await sql<CustomerRow[]>`
    select ${customerColumns(sql)} from customers
    where true ${inScope(sql, "app_id", f.scope)}
      ${
    f.organizationId !== undefined
      ? sql`and app_id in (select a.id from apps a where a.organization_id = ${f.organizationId})`
      : sql``
  }
      ${f.email ? sql`and lower(email) = lower(${f.email})` : sql``}
      ${f.externalId ? sql`and external_id = ${f.externalId}` : sql``}
      ${f.beforeId !== undefined ? sql`and id < ${f.beforeId}` : sql``}
    order by id desc
    limit ${limit}
  `;
}

const agentColumns = (sql: Sql) =>
  sql`u.id, (select o.slug from organizations o where o.id = u.organization_id) as organization,
    u.external_id, u.email, u.first_name, u.last_name, u.phone, u.locale, u.created_at,
    u.updated_at,
    coalesce((select json_agg(json_build_object('teamId', t.team_id, 'teamName', t.name)
        order by t.team_id)
      from team_members m join teams t on t.id = m.team_id where m.user_id = u.id), '[]') as teams`;

/** One agent (role agent) in the scope, or null. */
export async function agentById(sql: Sql, id: number, scope: AppScope): Promise<AgentRow | null> {
  const [row] = await sql<AgentRow[]>`
    select ${agentColumns(sql)} from users u
    where u.id = ${id} and u.role = 'agent' ${agentInScope(sql, scope)}
  `;
  return row ?? null;
}

/** A page of agents, newest first. */
export async function listAgents(sql: Sql, f: PeopleFilter, limit: number): Promise<AgentRow[]> {
  return await sql<AgentRow[]>`
    select ${agentColumns(sql)} from users u
    where u.role = 'agent' ${agentInScope(sql, f.scope)}
      ${f.organizationId !== undefined ? sql`and u.organization_id = ${f.organizationId}` : sql``}
      ${f.email ? sql`and lower(u.email) = lower(${f.email})` : sql``}
      ${f.externalId ? sql`and u.external_id = ${f.externalId}` : sql``}
      ${f.beforeId !== undefined ? sql`and u.id < ${f.beforeId}` : sql``}
    order by u.id desc
    limit ${limit}
  `;
}
