/**
 * SQL of the launch: one call of the launch_apply function (db/functions/launch_apply.sql),
 * the failed-launch record, the app lookup and the re-entry of a replayed launch.
 */
import type postgres from "postgres";
import { jsonb, type Sql, storableText, type Tx } from "../mod.ts";
import { sqlState } from "../errors.ts";
import { traceparent } from "../instrument.ts";
import type { UserFields } from "./users.ts";

/** The agent's fields a launch writes (the parsed payload's agent, server/launch/payload.ts). */
export type LaunchAgentFields = UserFields;

/** The customer's fields a launch writes. */
export interface LaunchCustomerFields {
  externalId: string;
  email: string;
  firstName: string;
  lastName: string;
  phone1: string;
  phone2: string | null;
  otherPhone: string | null;
}

/**
 * One refusal as launch_apply reports it: its code (server/launch/refusals.ts words it) and what
 * it is about: the offending value (a custom field's name, a session id, an e-mail, a search
 * value), a guided-path search value's place (`type`, `entry`, `index`), the users involved.
 */
export interface LaunchRefusal {
  code: string;
  value?: string | number;
  type?: string;
  entry?: number;
  index?: number;
  ids?: number[];
}

/**
 * What a launch wrote (or, in a dry run, would have written: there, the ids of the rows it
 * created are null, and events 0).
 */
export interface AppliedLaunch {
  launchId: number;
  sessionId: number;
  agentId: number;
  customerId: number;
  /** Callback events written. */
  events: number;
  /** The caller's warnings, then the identity conflicts the upsert resolved. */
  warnings: Record<string, unknown>[];
  plan: {
    agent: "create" | "update";
    customer: "create" | "update";
    session: "create" | "update";
    assign: boolean;
  };
}

/** What launch_apply came to: done, a dry run's end, or refused with every refusal found. */
export type LaunchOutcome =
  | { kind: "done"; applied: AppliedLaunch }
  | { kind: "dry_run"; applied: AppliedLaunch }
  | { kind: "refused"; refusals: LaunchRefusal[] };

/** Everything launch_apply reads: the parsed payload's values and the launch's metadata. */
export interface LaunchInput {
  appId: number;
  appName: string;
  /** The session the launch names (only the app's own sessions are found). */
  sessionId: number | null;
  /** The request's replay key, stored for the app until it expires; null when unprotected. */
  replay: { key: string; expiresAt: Date } | null;
  /** The guided-path search entries (each of its values must name something live). */
  pathSearch: { type: string; values: string[] }[];
  agent: LaunchAgentFields;
  customer: LaunchCustomerFields;
  session: {
    externalReference: string;
    referenceId: string | null;
    target: string;
    /** Existing session: assign it to the agent (only when it is open). */
    assign: boolean;
  };
  customFields: Record<string, unknown>;
  /** The custom fields' names in the payload's order (each must be configured). */
  customFieldNames: string[];
  devices: { kind: string; properties: Record<string, unknown> }[];
  teams: { teamId: string; teamName: string }[];
  clientAddress: string | null;
  userAgent: string | null;
  payload: unknown;
  view: unknown;
  warnings: unknown[];
  keyUsed: "current" | "previous";
  protection: "protected" | "unprotected" | "off";
  login: { tokenHash: string; expiresAt: Date };
  eventTimestamp: string;
  /** A Canvas-style launch's CRM instance and sealed token, kept on the session. */
  crm: { instanceUrl: string; oauthTokenSealed: string | null } | null;
  /** Do everything, answer what was done, then roll it all back. */
  dryRun: boolean;
}

/** The SQLSTATEs launch_apply raises (db/functions/launch_apply.sql). */
const REFUSED = "PLL01";
const DRY_RUN_DONE = "PLL03";

/**
 * The launch's database work in ONE call of launch_apply (one round trip, one implicit
 * transaction): lookups, agent and customer, session, custom fields, devices, teams, launch
 * record, portal login and callback events. A refusal raises inside the function, so nothing is
 * written; it comes back as the list of every refusal found. A unique violation (a race with a
 * concurrent launch) is thrown for the caller to run the launch again.
 */
export async function applyLaunch(sql: Tx, input: LaunchInput): Promise<LaunchOutcome> {
  // U+0000 never gets here: the request is refused at the boundary (server/http/nul.ts).
  return await callLaunchApply(sql, launchApplyArgs(input));
}

/**
 * The argument launch_apply gets for `input` (the bench's database-limit case stores these, so
 * it calls the function exactly as the service does).
 */
export function launchApplyArgs(input: LaunchInput): Record<string, unknown> {
  // Serialized once by the driver (dates become ISO strings, as the function reads them); the
  // input is built fresh per launch, so no defensive copy (jsonb()) is needed.
  // traceparent: the request's trace context, kept with the callback events it emits.
  return {
    ...input,
    userAgent: input.userAgent?.slice(0, 256) ?? null,
    traceparent: traceparent(),
  };
}

async function callLaunchApply(sql: Tx, args: unknown): Promise<LaunchOutcome> {
  try {
    const [row] = await sql<{ applied: AppliedLaunch }[]>`
      select launch_apply(${sql.json(args as postgres.JSONValue)}::jsonb) as applied
    `;
    return { kind: "done", applied: row.applied };
  } catch (err) {
    const code = sqlState(err);
    const detail = (err as { detail?: string }).detail ?? "null";
    if (code === DRY_RUN_DONE) return { kind: "dry_run", applied: JSON.parse(detail) };
    if (code === REFUSED) return { kind: "refused", refusals: JSON.parse(detail) };
    throw err;
  }
}

/** Records a failed launch attempt (outside the failed transaction). */
export async function insertFailedLaunch(
  tx: Tx,
  v: {
    appId: number | null;
    appName: string;
    outcome: string;
    message: string;
    clientAddress: string | null;
    userAgent: string | null;
    payload: unknown;
    warnings: unknown[];
    /** The refusal's field errors `[{path, code, message}]`. */
    errors: unknown[];
    /** The Inspector's diagnosis of the signed_request; null when none was read. */
    diagnosis: unknown;
  },
): Promise<number> {
  const [row] = await tx<{ id: number }[]>`
    insert into launches (app_id, app_name, outcome, message, client_address, user_agent,
      payload, warnings, errors, diagnosis)
    values (${v.appId}, ${v.appName.slice(0, 64)}, ${v.outcome}, ${storableText(v.message)},
      ${v.clientAddress},
      ${v.userAgent?.slice(0, 256) ?? null}, ${v.payload === null ? null : jsonb(tx, v.payload)},
      ${jsonb(tx, v.warnings)}, ${jsonb(tx, v.errors)},
      ${v.diagnosis === null ? null : jsonb(tx, v.diagnosis)})
    returning id
  `;
  return row.id;
}

/** An app as the launch endpoint needs it: policy, signing keys (sealed) and embedders. */
export interface LaunchApp {
  id: number;
  appName: string;
  enabled: boolean;
  authType: "signed_request" | "oauth2_signed_request";
  apiKeySealed: string | null;
  consumerSecretSealed: string | null;
  apiKeyPreviousSealed: string | null;
  consumerSecretPreviousSealed: string | null;
  previousKeyExpiresAt: Date | null;
  frameAncestors: string[];
  replayProtection: "required" | "optional" | "off";
  maxAgeSeconds: number;
  /** The implementor class: how its signed requests map onto the payload contract. */
  implementor: "default" | "crm_standard" | "crm_v6_5";
}

/** The app named `appName` (case-insensitive), or null. */
export async function findLaunchApp(sql: Sql, appName: string): Promise<LaunchApp | null> {
  const [row] = await sql<LaunchApp[]>`
    select id, app_name, enabled, auth_type, api_key_sealed, consumer_secret_sealed,
      api_key_previous_sealed, consumer_secret_previous_sealed, previous_key_expires_at,
      frame_ancestors, replay_protection, max_age_seconds, implementor
    from apps where lower(app_name) = lower(${appName})
  `;
  return row ? { ...row, id: Number(row.id) } : null;
}

/**
 * The session a replay re-enters: when the login of `tokenHash` is live and was created by a
 * launch of `appId` with this replay key, that launch's session and id; else null.
 */
export async function reentryOf(
  sql: Sql,
  q: { tokenHash: string; appId: number; replayKey: string },
): Promise<{ sessionId: number; launchId: number } | null> {
  const [row] = await sql<{ sessionId: number; launchId: number }[]>`
    select l.session_id, l.id as launch_id
    from logins pl join launches l on l.id = pl.launch_id
    where pl.token_hash = ${q.tokenHash} and pl.expires_at > now()
      and l.app_id = ${q.appId} and l.replay_key = ${q.replayKey} and l.outcome = 'ok'
  `;
  return row ? { sessionId: Number(row.sessionId), launchId: Number(row.launchId) } : null;
}
