/** SQL of the launch audit log (read side). */
import type { Sql } from "../mod.ts";

/** One launch attempt. */
export interface LaunchLogRow {
  id: number;
  appName: string;
  outcome: string;
  message: string | null;
  agentId: number | null;
  sessionId: number | null;
  clientAddress: string | null;
  userAgent: string | null;
  payload: unknown;
  view: unknown;
  /** What the launch ignored, repaired or resolved: `[{path, code, message, ...ids}]`. */
  warnings: { path: string; code: string; message: string }[];
  /** Which of the app's signing keys verified it (null: none did, or it failed before). */
  keyUsed: "current" | "previous" | null;
  /** Its replay protection: protected (issuedAt and nonce), unprotected, off; null: not reached. */
  protection: "protected" | "unprotected" | "off" | null;
  /** A refused launch's field errors. */
  errors: { path: string; code: string; message: string }[];
  /** The Inspector's diagnosis of a refused launch's signed_request (null: none was read). */
  diagnosis: { signature: "valid" | "invalid" | "malformed"; causes: string[] } | null;
  createdAt: Date;
}

/** Filters of the launch log; `beforeId` is the keyset (newest first). */
export interface LaunchLogFilter {
  /** Only this app's launches (null: none); every app's when undefined. */
  appId?: number | null;
  /** Only launches through this organization's apps. */
  organizationId?: number;
  app?: string;
  outcome?: string;
  since?: Date;
  /** Only launches that recorded at least one warning. */
  withWarnings?: boolean;
  beforeId?: number;
}

/** A page of launch attempts, newest first. */
export async function listLaunches(
  sql: Sql,
  f: LaunchLogFilter,
  limit: number,
): Promise<LaunchLogRow[]> {
  return await sql<LaunchLogRow[]>`
    select id, app_name, outcome, message, agent_id, session_id, client_address, user_agent,
      payload, view, warnings, key_used, protection, errors, diagnosis, created_at
    from launches
    where true
      ${f.appId !== undefined ? sql`and app_id = ${f.appId}` : sql``}
      ${
    f.organizationId !== undefined
      ? sql`and app_id in (select a.id from apps a where a.organization_id = ${f.organizationId})`
      : sql``
  }
      ${f.withWarnings ? sql`and warnings <> '[]'::jsonb` : sql``}
      ${f.app ? sql`and lower(app_name) = lower(${f.app})` : sql``}
      ${
    // Refusals through their partial index (migration 00026), whose predicate is stated here so
    // that a generic plan may use it too; ok launches are most rows: the primary key finds them.
    f.outcome
      ? f.outcome === "ok"
        ? sql`and outcome = 'ok'`
        : sql`and outcome <> 'ok' and outcome = ${f.outcome}`
      : sql``}
      ${f.since ? sql`and created_at >= ${f.since}` : sql``}
      ${f.beforeId !== undefined ? sql`and id < ${f.beforeId}` : sql``}
    order by id desc
    limit ${limit}
  `;
}

/** One launch attempt (of app `appId` when given; null: none), or null. */
export async function launchById(
  sql: Sql,
  id: number,
  appId?: number | null,
): Promise<LaunchLogRow | null> {
  const [row] = await sql<LaunchLogRow[]>`
    select id, app_name, outcome, message, agent_id, session_id, client_address, user_agent,
      payload, view, warnings, key_used, protection, errors, diagnosis, created_at
    from launches where id = ${id}
      ${appId !== undefined ? sql`and app_id = ${appId}` : sql``}
  `;
  return row ?? null;
}

/**
 * The newest launch record of app `appId` whose payload carries `nonce` (within the last day),
 * or null: how the admin's Try launch finds the record of the launch it signed.
 */
export async function launchIdByNonce(
  sql: Sql,
  appId: number,
  nonce: string,
): Promise<number | null> {
  const [row] = await sql<{ id: number }[]>`
    select id from launches
    where app_id = ${appId} and created_at > now() - interval '1 day'
      and payload ->> 'nonce' = ${nonce}
    order by id desc
    limit 1
  `;
  return row ? Number(row.id) : null;
}
