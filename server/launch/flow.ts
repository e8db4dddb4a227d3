/**
 * The launch processing flow (spec §5.4) in ONE transaction and ONE round trip: lookups, agent,
 * customer, session, custom fields, devices, teams, launch record, portal login and callback
 * events. Either all of it is written or none of it (see applyFlow). The dry run runs the same
 * code and rolls back.
 */
import { isUniqueViolation } from "../../db/errors.ts";
import { type AppliedLaunch, applyLaunch, type LaunchInput } from "../../db/queries/launch.ts";
import type { FreshnessOutcome } from "./freshness.ts";
import { newLoginToken } from "../auth/logins.ts";
import { PORTAL_LOGIN_HOURS } from "../auth/cookies.ts";
import type { Deps } from "../deps.ts";
import type { LaunchPayload, LaunchWarning } from "./payload.ts";
import { refusalError } from "./refusals.ts";
import { inStatement } from "../transaction.ts";

/** Where the launch comes from. */
export interface LaunchMeta {
  appId: number;
  appName: string;
  clientAddress: string | null;
  userAgent: string | null;
  /** The decoded payload as stored in the audit record. */
  payload: unknown;
  /** Warnings from before the payload was parsed (a repaired signed_request). */
  warnings?: LaunchWarning[];
  /** Which of the app's keys verified the request (default: the current one). */
  keyUsed?: "current" | "previous";
  /** The replay check's outcome (default: not protected, nothing stored). */
  freshness?: FreshnessOutcome;
  /** A Canvas-style launch's CRM instance and its OAuth token (sealed), kept for callbacks. */
  crm?: { instanceUrl: string; oauthTokenSealed: string | null } | null;
}

/** A completed launch. */
export interface LaunchResult {
  launchId: number;
  sessionId: number;
  agentId: number;
  customerId: number;
  loginToken: string;
  /** What the launch ignored, repaired or resolved (also in its launch log record). */
  warnings: LaunchWarning[];
  /** Callback events the launch emitted. */
  events: number;
}

/** What a launch would do (the dry run). */
export interface LaunchPlan {
  agent: "create" | "update";
  customer: "create" | "update";
  session: "create" | "update";
  assign: boolean;
}

/**
 * What launch_apply is called with for payload `p` from `meta`: the input the flow sends (the
 * bench's database-limit case builds its inputs with it too, so both call the same function the
 * same way).
 */
export function launchInput(
  p: LaunchPayload,
  meta: LaunchMeta,
  login: { tokenHash: string; expiresAt: Date },
  dryRun: boolean,
): LaunchInput {
  const freshness = meta.freshness ?? { protection: "off", replay: null };
  return {
    appId: meta.appId,
    appName: meta.appName,
    sessionId: p.session.id,
    replay: freshness.replay,
    pathSearch: p.view.paths?.search ?? [],
    agent: p.agent,
    customer: p.customer,
    session: {
      externalReference: p.session.externalReference,
      referenceId: p.session.referenceId,
      target: p.view.target,
      assign: p.session.assign,
    },
    customFields: p.session.customFields,
    customFieldNames: Object.keys(p.session.customFields),
    // Devices are added to a session; a repeated serial (same kind) updates that device.
    devices: p.session.devices,
    teams: p.agent.teams ?? [],
    clientAddress: meta.clientAddress,
    userAgent: meta.userAgent,
    payload: meta.payload,
    view: p.view,
    warnings: [...(meta.warnings ?? []), ...p.warnings],
    keyUsed: meta.keyUsed ?? "current",
    protection: freshness.protection,
    login,
    eventTimestamp: new Date().toISOString(),
    crm: meta.crm ?? null,
    dryRun,
  } satisfies LaunchInput;
}

/**
 * The flow. The database work, and every decision, is ONE call of the SQL function launch_apply
 * (db/functions/launch_apply.sql), so a launch costs one round trip and its rules live in one
 * place; this function only builds its input and maps its answer:
 *
 * 1. Lookups: the replay key is stored (a used one refuses the launch at once), the named session
 *    is locked (only the app's own), settings, custom fields and the catalog entries named are
 *    checked.
 * 2. The agent and the customer are found or created, resolving identity conflicts in the spec's
 *    order; an administrator's e-mail or a disabled agent is refused. Every refusal of steps 1
 *    and 2 comes back as one list, which server/launch/refusals.ts words.
 * 3. The conflicts resolved become warnings, after the caller's and the payload's.
 * 4. The session (created and assigned, or updated), custom fields, devices, teams, the launch
 *    record, the portal login and the callback events (session_callback_types).
 *
 * A refusal inside the function rolls all of it back; the dry run does everything and rolls back.
 */
async function applyFlow(
  deps: Deps,
  p: LaunchPayload,
  meta: LaunchMeta,
  login: { tokenHash: string; expiresAt: Date },
  dryRun: boolean,
): Promise<{ applied: AppliedLaunch; dryRun: boolean }> {
  const input = launchInput(p, meta, login, dryRun);
  // A unique violation means a concurrent launch committed a row first: a second pass finds it.
  for (let attempt = 1;; attempt++) {
    let outcome;
    try {
      outcome = await inStatement(deps, async (w) => {
        const out = await applyLaunch(w.tx, input);
        if (out.kind === "done") w.after.callbackEventsWritten(out.applied.events);
        return out;
      });
    } catch (err) {
      if (!isUniqueViolation(err) || attempt === 3) throw err;
      continue;
    }
    if (outcome.kind === "refused") throw refusalError(outcome.refusals);
    return { applied: outcome.applied, dryRun: outcome.kind === "dry_run" };
  }
}

/** Runs a launch; throws AppError for every refusal, after which nothing was written. */
export async function runLaunch(
  deps: Deps,
  p: LaunchPayload,
  meta: LaunchMeta,
): Promise<LaunchResult> {
  const login = newLoginToken(PORTAL_LOGIN_HOURS);
  const { applied } = await applyFlow(deps, p, meta, login, false);
  return {
    launchId: applied.launchId,
    sessionId: applied.sessionId,
    agentId: applied.agentId,
    customerId: applied.customerId,
    loginToken: login.token,
    warnings: applied.warnings as LaunchWarning[],
    events: applied.events,
  };
}

/** What the dry run answers: the plan and the warnings the launch would record. */
export interface DryRunResult {
  plan: LaunchPlan;
  warnings: LaunchWarning[];
}

/**
 * The dry run: the launch's own flow, rolled back at its end, so it answers exactly what the
 * launch would (same checks, same matching, same refusals) and writes nothing. It draws no id
 * from a sequence either (PostgreSQL never rolls them back): its rows get ids of their own
 * (launch_row_id), so session, customer and agent numbers stay gap-free.
 */
export async function planLaunch(
  deps: Deps,
  p: LaunchPayload,
  meta: LaunchMeta,
): Promise<DryRunResult> {
  const login = newLoginToken(PORTAL_LOGIN_HOURS);
  const { applied, dryRun } = await applyFlow(deps, p, meta, login, true);
  if (!dryRun) throw new Error("launch_apply committed a dry run");
  return { plan: applied.plan, warnings: applied.warnings as LaunchWarning[] };
}
