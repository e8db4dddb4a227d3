/** SQL of the session resource: one query builds a whole session, for one or for a page. */
import { jsonb, type Sql, type Tx } from "../mod.ts";

/** A session with everything the API and the portal show about it. */
export interface SessionRow {
  id: number;
  status: "open" | "closed";
  externalReference: string | null;
  referenceId: string | null;
  target: "standard" | "embedded" | "seesupport";
  appId: number | null;
  assignee: {
    id: number;
    externalId: string | null;
    email: string;
    firstName: string;
    lastName: string;
  } | null;
  customer: {
    id: number;
    externalId: string | null;
    email: string;
    firstName: string;
    lastName: string;
    phone1: string | null;
    phone2: string | null;
    otherPhone: string | null;
  };
  customFields: Record<string, string | number | boolean>;
  devices: { id: number; kind: "computer" | "mobile"; properties: Record<string, unknown> }[];
  pathRuns: { pathUid: string; title: string; ranAt: string; agentId: number | null }[];
  createdAt: Date;
  updatedAt: Date;
}

/** Filters of the session list. */
export interface SessionFilter {
  /** Only this app's sessions (null: none); every app's when undefined. */
  appId?: number | null;
  /** Only sessions of this organization's apps. */
  organizationId?: number;
  status?: "open" | "closed";
  externalReference?: string;
  referenceId?: string;
  customerExternalId?: string;
  assigneeId?: number;
  updatedSince?: Date;
  /** Keyset: only sessions with a smaller id (the list runs newest first). */
  beforeId?: number;
}

/** The parts of a session read from other tables, each one JSON value (s: session, c: customer). */
function sessionParts(sql: Sql | Tx) {
  return {
    assignee: sql`(select json_build_object('id', u.id, 'externalId', u.external_id,
        'email', u.email, 'firstName', u.first_name, 'lastName', u.last_name)
      from users u where u.id = s.assignee_id)`,
    customer: sql`json_build_object('id', c.id, 'externalId', c.external_id, 'email', c.email,
      'firstName', c.first_name, 'lastName', c.last_name, 'phone1', c.phone1,
      'phone2', c.phone2, 'otherPhone', c.other_phone)`,
    customFields: sql`coalesce((select json_object_agg(f.name, f.value order by f.name)
      from session_custom_fields f where f.session_id = s.id), '{}')`,
    devices: sql`coalesce((select json_agg(json_build_object('id', d.id, 'kind', d.kind,
        'properties', d.properties) order by d.id)
      from devices d where d.session_id = s.id), '[]')`,
    pathRuns: sql`coalesce((select json_agg(json_build_object('pathUid', r.path_uid,
        'title', p.title, 'ranAt', api_time(r.ran_at), 'agentId', r.agent_id)
        order by r.ran_at, r.id)
      from path_runs r join paths p on p.uid = r.path_uid where r.session_id = s.id), '[]')`,
  };
}

function sessionColumns(sql: Sql | Tx) {
  const part = sessionParts(sql);
  return sql`
    s.id, s.status, s.external_reference, s.reference_id, s.target, s.app_id,
    s.created_at, s.updated_at, ${part.assignee} as assignee, ${part.customer} as customer,
    ${part.customFields} as custom_fields, ${part.devices} as devices,
    ${part.pathRuns} as path_runs
  `;
}

/**
 * The session as the REST API shows it (the Session schema of the API description), as a JSON
 * value built by PostgreSQL; read as text, the API sends it as it comes.
 */
function sessionResource(sql: Sql | Tx) {
  const part = sessionParts(sql);
  return sql`json_build_object('id', s.id, 'status', s.status,
    'externalReference', s.external_reference, 'referenceId', s.reference_id,
    'target', s.target, 'assignee', ${part.assignee}, 'customer', ${part.customer},
    'customFields', ${part.customFields}, 'devices', ${part.devices},
    'pathRuns', ${part.pathRuns}, 'createdAt', api_time(s.created_at),
    'updatedAt', api_time(s.updated_at))`;
}

/** One session, or null. */
export async function sessionById(sql: Sql | Tx, id: number): Promise<SessionRow | null> {
  const [row] = await sql<SessionRow[]>`
    select ${sessionColumns(sql)}
    from sessions s join customers c on c.id = s.customer_id
    where s.id = ${id}
  `;
  return row ?? null;
}

/** One session as the API's JSON text, with its app (for the caller's scope), or null. */
export async function sessionJsonById(
  sql: Sql | Tx,
  id: number,
): Promise<{ appId: number | null; json: string } | null> {
  const [row] = await sql<{ appId: number | null; json: string }[]>`
    select s.app_id, ${sessionResource(sql)}::text as json
    from sessions s join customers c on c.id = s.customer_id
    where s.id = ${id}
  `;
  return row ?? null;
}

const decoder = new TextDecoder();

/**
 * A page of sessions matching the filter, newest first, as the API's JSON array in UTF-8 bytes
 * (PostgreSQL's text, never decoded into a string): up to `limit` of them, whether more follow,
 * and the last one's id (the next page's keyset).
 */
export async function listSessionsJson(
  sql: Sql,
  f: SessionFilter,
  limit: number,
): Promise<{ items: Uint8Array; more: boolean; lastId: number | null }> {
  // Raw: each column as the bytes PostgreSQL sent, a view into the driver's read buffer.
  const [[items, fetched, lastId]] = await sql<[Uint8Array, Uint8Array, Uint8Array | null][]>`
    with fetched as (
      select s.id
      from sessions s
      ${
    // The customer is joined only to filter by it: a page needs no customer row to pick ids.
    f.customerExternalId ? sql`join customers c on c.id = s.customer_id` : sql``}
      where true
        ${f.appId !== undefined ? sql`and s.app_id = ${f.appId}` : sql``}
        ${
    f.organizationId !== undefined
      ? sql`and s.app_id in (select a.id from apps a where a.organization_id = ${f.organizationId})`
      : sql``
  }
        ${f.status ? sql`and s.status = ${f.status}` : sql``}
        ${f.externalReference ? sql`and s.external_reference = ${f.externalReference}` : sql``}
        ${f.referenceId ? sql`and s.reference_id = ${f.referenceId}` : sql``}
        ${f.customerExternalId ? sql`and c.external_id = ${f.customerExternalId}` : sql``}
        ${f.assigneeId !== undefined ? sql`and s.assignee_id = ${f.assigneeId}` : sql``}
        ${f.updatedSince ? sql`and s.updated_at >= ${f.updatedSince}` : sql``}
        ${f.beforeId !== undefined ? sql`and s.id < ${f.beforeId}` : sql``}
      order by s.id desc
      limit ${limit + 1}
    ),
    shown as (select id from fetched order by id desc limit ${limit})
    select
      coalesce((select json_agg(${sessionResource(sql)} order by s.id desc)
        from shown join sessions s on s.id = shown.id join customers c on c.id = s.customer_id),
        '[]')::text as items,
      (select count(*) from fetched)::int as fetched,
      (select min(id) from shown) as last_id
  `.raw();
  const number = (bytes: Uint8Array) => Number(decoder.decode(bytes));
  return {
    items,
    more: number(fetched) > limit,
    lastId: lastId === null ? null : number(lastId),
  };
}

/** What a session change must check first, read in one round trip (the session is locked). */
export interface ChangeLookups {
  session: { id: number; status: "open" | "closed"; assigneeId: number | null } | null;
  knownCustomFields: string[];
  /**
   * Whether the assignee asked for is an enabled agent of the session's organization (the
   * organization of its app; `default` for a session without one). False for any other id.
   */
  assigneeAllowed: boolean;
}

/** Locks the session and reads what a change needs. */
export async function changeLookups(
  tx: Tx,
  q: { sessionId: number; customFields: string[]; assigneeId: number | null },
): Promise<ChangeLookups> {
  const [row] = await tx`
    with s as (
      select s.id, s.status, s.assignee_id, coalesce(a.organization_id, 1) as organization_id
      from sessions s left join apps a on a.id = s.app_id
      where s.id = ${q.sessionId} for update of s
    )
    select
      (select json_build_object('id', id, 'status', status, 'assigneeId', assignee_id)
        from s) as session,
      array(select name from custom_field_definitions
        where name = any(${q.customFields}::text[])) as known_custom_fields,
      exists (select 1 from users u, s
        where u.id = ${q.assigneeId} and u.role = 'agent' and u.disabled_at is null
          and u.organization_id = s.organization_id) as assignee_allowed
  `;
  return {
    session: row.session,
    knownCustomFields: row.knownCustomFields,
    assigneeAllowed: row.assigneeAllowed,
  };
}

/** Applies a change: status, assignee (null unassigns), custom fields (null removes one). */
export async function applySessionChange(
  tx: Tx,
  c: {
    sessionId: number;
    status?: "open" | "closed";
    assigneeId?: number | null;
    setFields: Record<string, string | number | boolean>;
    removeFields: string[];
  },
): Promise<void> {
  await tx`
    with removed as (
      delete from session_custom_fields
      where session_id = ${c.sessionId} and name = any(${c.removeFields}::text[])
      returning 1
    ),
    written as (
      insert into session_custom_fields (session_id, name, value)
      select ${c.sessionId}, key, value from jsonb_each(${jsonb(tx, c.setFields)}::jsonb)
      on conflict (session_id, name) do update set value = excluded.value, updated_at = now()
      returning 1
    )
    update sessions set
      status = coalesce(${c.status ?? null}, status),
      assignee_id = case when ${c.assigneeId !== undefined} then ${c.assigneeId ?? null}::bigint
        else assignee_id end,
      updated_at = now()
    where id = ${c.sessionId}
  `;
}
