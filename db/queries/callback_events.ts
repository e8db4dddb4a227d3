/**
 * SQL of the callback outbox: events are written in the caller's transaction (so a rolled-back
 * change emits nothing), claimed by delivery workers with FOR UPDATE SKIP LOCKED (so any number
 * of processes share the work), and finished with their attempt recorded in one statement.
 */
import { jsonb, type Sql, type Tx } from "../mod.ts";
import { traceparent } from "../instrument.ts";

/** One event to emit on a session: its type and what it adds to `data`. */
export interface EventToEmit {
  type: string;
  extra?: Record<string, unknown>;
}

/**
 * Writes the session's callback events in the caller's transaction with the SQL function
 * emit_callback_events (also used by the launch function): a snapshot of the session (reference,
 * status, assignee, customer) merged with each event's `extra`, only when the session has a
 * referenceId and its app has a callback URL and subscribes to that type. Returns how many were
 * written. Each event keeps the active span's trace context (its delivery links to the change).
 */
export async function insertCallbackEvents(
  tx: Tx,
  sessionId: number,
  events: EventToEmit[],
  timestamp: string,
): Promise<number> {
  if (!events.length) return 0;
  const [row] = await tx<{ n: number }[]>`
    select emit_callback_events(${sessionId}, ${jsonb(tx, events)}::jsonb, ${timestamp},
      ${traceparent()}) as n
  `;
  return row.n;
}

/** A change to an existing session: its status, assignee and data before and after. */
export interface SessionChangeFacts {
  statusFrom: string;
  statusTo: string;
  assigneeFrom: number | null;
  assigneeTo: number | null;
  /** Its data (custom fields) changed. */
  updated: boolean;
}

/**
 * Writes the callback events of a change to an existing session, as the SQL function
 * session_callback_types decides them (the launch uses the same rule), each with `extra`.
 * Returns how many were written.
 */
export async function insertChangeCallbackEvents(
  tx: Tx,
  sessionId: number,
  c: SessionChangeFacts,
  extra: Record<string, unknown>,
  timestamp: string,
): Promise<number> {
  // A change that changed nothing has nothing to emit: no statement (as an empty event list).
  const unchanged = c.statusFrom === c.statusTo && c.assigneeFrom === c.assigneeTo && !c.updated;
  if (unchanged) return 0;
  const [row] = await tx<{ n: number }[]>`
    select emit_callback_events(${sessionId}, (
      select coalesce(jsonb_agg(t || jsonb_build_object('extra', ${jsonb(tx, extra)}::jsonb)
        order by n), '[]'::jsonb)
      from jsonb_array_elements(session_callback_types(false, ${c.statusFrom}, ${c.statusTo},
        ${c.assigneeFrom}::bigint, ${c.assigneeTo}::bigint, ${c.updated})) with ordinality x(t, n)
    ), ${timestamp}, ${traceparent()}) as n
  `;
  return row.n;
}

/** A claimed event with what its delivery needs from its app. */
export interface ClaimedEvent {
  id: number;
  webhookId: string;
  appId: number;
  sessionId: number | null;
  referenceId: string | null;
  type: string;
  payload: Record<string, unknown>;
  attempts: number;
  app: {
    appName: string;
    implementor: "default" | "crm_standard" | "crm_v6_5";
    authType: "signed_request" | "oauth2_signed_request";
    callbackUrl: string | null;
    callbackMethod: "POST" | "PUT" | "PATCH";
    tokenUrl: string | null;
    tokenAuthMethod: "client_secret_basic" | "client_secret_post";
    consumerKey: string | null;
    consumerSecretSealed: string | null;
    callbackSecretSealed: string | null;
    callbackSecretPreviousSealed: string | null;
    callbackSecretPreviousExpiresAt: Date | null;
  };
  /** The session's CRM context (Canvas-style launches), when there is one. */
  crm: { instanceUrl: string; oauthTokenSealed: string | null } | null;
  /** The W3C trace context of the change that emitted it (null outside a trace). */
  traceparent?: string | null;
}

function claimed(rows: ClaimedEvent[]): ClaimedEvent[] {
  return rows.map((r) => ({
    ...r,
    app: {
      ...r.app,
      callbackSecretPreviousExpiresAt: r.app.callbackSecretPreviousExpiresAt
        ? new Date(r.app.callbackSecretPreviousExpiresAt)
        : null,
    },
  }));
}

/**
 * Claims up to `limit` due events for `leaseMs` with the SQL function claim_callback_events:
 * pending ones whose time has come, and delivering ones whose lease ran out (their worker died).
 * An event waits while an earlier event of the same session is still pending or being delivered,
 * so one session's events arrive in order. The function walks the due index in order and stops
 * once it holds `limit` events, whatever the size of the backlog.
 */
export async function claimDueEvents(
  sql: Tx,
  limit: number,
  leaseMs: number,
): Promise<ClaimedEvent[]> {
  // claimed_callback_events reads after the claim, with a snapshot that sees what was
  // committed with each event (migration 00016).
  const rows = await sql<ClaimedEvent[]>`
    select * from claimed_callback_events(
      array(select c.id from claim_callback_events(${limit}, ${leaseMs}) c))
  `;
  return claimed(rows);
}

/**
 * Writes a `ping` event for the app (no session) already claimed for `leaseMs`, so the request
 * that wrote it delivers it and no background worker races it; null when the app has no
 * callback URL. Should the request die, the lease runs out and a worker retries the ping.
 */
export async function insertClaimedPing(
  sql: Sql,
  appId: number,
  payload: Record<string, unknown>,
  leaseMs: number,
): Promise<ClaimedEvent | null> {
  const [ping] = await sql`
    insert into callback_events (webhook_id, app_id, type, payload, status, attempts, lease_until,
      traceparent)
    select 'msg_' || replace(gen_random_uuid()::text, '-', ''), id, 'ping',
      ${jsonb(sql, payload)}, 'delivering', 1,
      now() + ${leaseMs} * interval '1 millisecond', ${traceparent()}
    from apps where id = ${appId} and callback_url is not null
    returning id
  `;
  if (!ping) return null;
  const rows = await sql<ClaimedEvent[]>`select * from claimed_callback_events(${[ping.id]})`;
  return claimed(rows)[0] ?? null;
}

/** One delivery attempt's outcome. */
export interface AttemptRecord {
  startedAt: Date;
  durationMs: number;
  statusCode: number | null;
  error: string | null;
  responseSnippet: string | null;
  url: string;
}

/** What happens to the event after an attempt. */
export type NextStep =
  | { status: "delivered" }
  | { status: "failed" }
  | { status: "pending"; retryInMs: number };

/** One finished attempt of one event and what happens to the event next. */
export interface FinishedAttempt {
  eventId: number;
  attempt: AttemptRecord;
  next: NextStep;
}

/**
 * Records a batch of attempts and moves their events on, in one statement (the SQL function
 * finish_callback_attempts). An event no longer being delivered (redelivered or purged in
 * between) keeps its state; its attempt is still logged while the event exists.
 */
export async function finishAttempts(sql: Tx, finished: FinishedAttempt[]): Promise<void> {
  if (!finished.length) return;
  const results = finished.map(({ eventId, attempt, next }) => ({
    eventId,
    startedAt: attempt.startedAt.toISOString(),
    durationMs: attempt.durationMs,
    statusCode: attempt.statusCode,
    error: attempt.error,
    responseSnippet: attempt.responseSnippet,
    url: attempt.url,
    status: next.status,
    retryMs: next.status === "pending" ? next.retryInMs : 0,
  }));
  await sql`select finish_callback_attempts(${sql.json(results)})`;
}

/** Puts an event back in the queue for a new round of attempts; false when unknown. */
export async function requeueEvent(sql: Tx, id: number): Promise<boolean> {
  const rows = await sql`
    update callback_events set status = 'pending', attempts = 0, next_attempt_at = now(),
      lease_until = null, finished_at = null
    where id = ${id} and status <> 'delivering'
    returning 1
  `;
  return rows.length > 0;
}

/** An event as the deliveries API lists it, with its attempts. */
export interface DeliveryRow {
  id: number;
  webhookId: string;
  appId: number;
  appName: string;
  sessionId: number | null;
  referenceId: string | null;
  type: string;
  status: "pending" | "delivering" | "delivered" | "failed";
  attempts: number;
  nextAttemptAt: Date;
  lastError: string | null;
  createdAt: Date;
  finishedAt: Date | null;
  payload: Record<string, unknown>;
  attemptLog: {
    startedAt: string;
    durationMs: number;
    statusCode: number | null;
    error: string | null;
    responseSnippet: string | null;
    url: string;
  }[];
}

/** Filters of the deliveries list; appId undefined means every app. */
export interface DeliveryFilter {
  appId?: number | null;
  /** Only events of this organization's apps. */
  organizationId?: number;
  status?: string;
  type?: string;
  referenceId?: string;
  sessionId?: number;
  id?: number;
  /** Keyset: events with a smaller id. */
  beforeId?: number;
  limit: number;
}

/** The statuses of open events: those with no finished_at (migration 00029's check). */
const OPEN_STATUSES = ["pending", "delivering"];

/**
 * Lists events newest first, with every attempt. Each filter is a condition of its own only when
 * given (not `$x is null or col = $x`), so a prepared statement's generic plan can still read the
 * app, reference and session indexes. Open events (pending, delivering) are asked for as having
 * no finished_at too, the predicate of the small indexes of open events.
 */
export async function listDeliveries(sql: Tx, f: DeliveryFilter): Promise<DeliveryRow[]> {
  return await sql<DeliveryRow[]>`
    select e.id, e.webhook_id, e.app_id, a.app_name, e.session_id, e.reference_id, e.type,
      e.status, e.attempts, e.next_attempt_at, e.last_error, e.created_at, e.finished_at,
      e.payload,
      coalesce((select json_agg(json_build_object(
          'startedAt', t.started_at, 'durationMs', t.duration_ms, 'statusCode', t.status_code,
          'error', t.error, 'responseSnippet', t.response_snippet, 'url', t.url) order by t.id)
        from callback_attempts t where t.event_id = e.id), '[]') as attempt_log
    from callback_events e join apps a on a.id = e.app_id
    where true
      ${f.appId === undefined ? sql`` : sql`and e.app_id = ${f.appId}`}
      ${f.organizationId === undefined ? sql`` : sql`and a.organization_id = ${f.organizationId}`}
      ${f.status === undefined ? sql`` : sql`and e.status = ${f.status}`}
      ${OPEN_STATUSES.includes(f.status ?? "") ? sql`and e.finished_at is null` : sql``}
      ${f.type === undefined ? sql`` : sql`and e.type = ${f.type}`}
      ${f.referenceId === undefined ? sql`` : sql`and e.reference_id = ${f.referenceId}`}
      ${f.sessionId === undefined ? sql`` : sql`and e.session_id = ${f.sessionId}`}
      ${f.id === undefined ? sql`` : sql`and e.id = ${f.id}`}
      ${f.beforeId === undefined ? sql`` : sql`and e.id < ${f.beforeId}`}
    order by e.id desc
    limit ${f.limit}
  `;
}

/** Forgets a session's CRM token (the CRM refused it: the next calls use client credentials). */
export async function dropCrmToken(sql: Sql, sessionId: number): Promise<void> {
  await sql`
    update session_crm_contexts set oauth_token_sealed = null, updated_at = now()
    where session_id = ${sessionId}
  `;
}

/**
 * The outbox's backlog: events not yet delivered or given up (pending or being delivered) and
 * the age of the oldest of them in seconds (0 when there is none). Read through the partial
 * index of those events.
 */
export async function outboxStats(
  sql: Sql,
): Promise<{ pending: number; oldestAgeSeconds: number }> {
  const [row] = await sql<{ pending: number; oldestAgeSeconds: number }[]>`
    select count(*)::integer as pending,
      coalesce(extract(epoch from now() - min(created_at)), 0)::float8 as oldest_age_seconds
    from callback_events
    where finished_at is null
  `;
  return row;
}

/** Deletes finished events older than `days` (housekeeping). */
export async function deleteOldEvents(sql: Sql, days: number): Promise<number> {
  const rows = await sql`
    delete from callback_events
    where finished_at < now() - ${days} * interval '1 day'
    returning 1
  `;
  return rows.length;
}
