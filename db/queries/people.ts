/** SQL of the customer and agent resources (read-only). */
import type { Sql } from "../mod.ts";

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
export interface AgentRow {
  id: number;
  externalId: string | null;
  email: string;
  firstName: string;
  lastName: string;
  phone: string | null;
  locale: string | null;
  teams: { teamId: string; teamName: string }[];
  createdAt: Date;
  updatedAt: Date;
}

/** Filters of the customer and agent lists; `beforeId` is the keyset (newest first). */
export interface PeopleFilter {
  email?: string;
  externalId?: string;
  beforeId?: number;
}

const customerColumns = (sql: Sql) =>
  sql`id, external_id, email, first_name, last_name, phone1, phone2, other_phone, created_at,
    updated_at`;

/** One customer, or null. */
export async function customerById(sql: Sql, id: number): Promise<CustomerRow | null> {
  const [row] = await sql<CustomerRow[]>`
    select ${customerColumns(sql)} from customers where id = ${id}
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
    where true
      ${f.email ? sql`and lower(email) = lower(${f.email})` : sql``}
      ${f.externalId ? sql`and external_id = ${f.externalId}` : sql``}
      ${f.beforeId !== undefined ? sql`and id < ${f.beforeId}` : sql``}
    order by id desc
    limit ${limit}
  `;
}

const agentColumns = (sql: Sql) =>
  sql`u.id, u.external_id, u.email, u.first_name, u.last_name, u.phone, u.locale, u.created_at,
    u.updated_at,
    coalesce((select json_agg(json_build_object('teamId', t.team_id, 'teamName', t.name)
        order by t.team_id)
      from team_members m join teams t on t.id = m.team_id where m.user_id = u.id), '[]') as teams`;

/** One agent (role agent), or null. */
export async function agentById(sql: Sql, id: number): Promise<AgentRow | null> {
  const [row] = await sql<AgentRow[]>`
    select ${agentColumns(sql)} from users u where u.id = ${id} and u.role = 'agent'
  `;
  return row ?? null;
}

/** A page of agents, newest first. */
export async function listAgents(sql: Sql, f: PeopleFilter, limit: number): Promise<AgentRow[]> {
  return await sql<AgentRow[]>`
    select ${agentColumns(sql)} from users u
    where u.role = 'agent'
      ${f.email ? sql`and lower(u.email) = lower(${f.email})` : sql``}
      ${f.externalId ? sql`and u.external_id = ${f.externalId}` : sql``}
      ${f.beforeId !== undefined ? sql`and u.id < ${f.beforeId}` : sql``}
    order by u.id desc
    limit ${limit}
  `;
}
