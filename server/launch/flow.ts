/**
 * The launch processing flow (spec §5.4) in ONE transaction and ONE round trip: lookups, agent,
 * customer, session, custom fields, devices, teams, launch record, portal login and callback
 * events. Either all of it is written or none of it (see applyFlow). The dry run runs the same
 * code and rolls back.
 */
import { isUniqueViolation } from "../../db/errors.ts";
import {
  type AppliedLaunch,
  applyLaunch,
  type LaunchInput,
  type LaunchLookups,
} from "../../db/queries/launch.ts";
import { type FreshnessOutcome, replayed } from "./freshness.ts";
import { newLoginToken } from "../auth/logins.ts";
import { PORTAL_LOGIN_HOURS } from "../auth/cookies.ts";
import type { Deps } from "../deps.ts";
import { AppError, type FieldError } from "../http/errors.ts";
import { eventsCommitted } from "../callbacks/events.ts";
import type { LaunchPayload, LaunchWarning } from "./payload.ts";

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

const PARAMS = "context.environment.parameters";

/** Checks what the lookups answer: settings, custom fields, session, catalog (spec §2.3 rule 1). */
function checkLookups(p: LaunchPayload, found: LaunchLookups): void {
  if (!found.externalSessionId || !found.externalCustomerId) {
    const which = [
      !found.externalSessionId ? "the external session id field (Session Data)" : "",
      !found.externalCustomerId ? "the external customer id field (Consumer Data)" : "",
    ].filter(Boolean).join(" and ");
    throw new AppError(
      409,
      "field_disabled",
      `Enable ${which} in the administrator's field settings: launches store referenceNumber ` +
        "and contactId there",
    );
  }
  if (p.session.id !== null && !found.session) {
    throw new AppError(404, "session_not_found", `Session ${p.session.id} not found`);
  }
  const unknownFields = Object.keys(p.session.customFields).filter(
    (name) => !found.knownCustomFields.includes(name),
  );
  if (unknownFields.length) {
    throw new AppError(
      400,
      "unknown_custom_fields",
      `Custom fields not configured: ${unknownFields.join(", ")}`,
      unknownFields.map((name) => ({
        path: `${PARAMS}.customFields.${name}`,
        message: "not configured in the custom-fields setup",
      })),
    );
  }
  const errors: FieldError[] = [];
  p.view.paths?.search.forEach((entry, i) => {
    const live = entry.type === "category_uid"
      ? found.liveCategories
      : entry.type === "path_uid"
      ? found.livePaths
      : entry.type === "tag"
      ? found.liveTags
      : null;
    if (!live) return;
    entry.values.forEach((value, j) => {
      if (!live.includes(value)) {
        const what = entry.type === "category_uid"
          ? "no such category (unknown or deleted)"
          : entry.type === "path_uid"
          ? "no such published path (unknown, deleted or unpublished)"
          : "no published path has this tag";
        errors.push({
          path: `${PARAMS}.paths.search.${i}.search_values.${j}`,
          message: `${value}: ${what}`,
        });
      }
    });
  });
  if (errors.length) {
    throw new AppError(
      400,
      "invalid_paths",
      "Invalid or no longer valid guided-path search values",
      errors,
    );
  }
}

/** The guided-path search values of one type that the launch names. */
function searchValues(p: LaunchPayload, type: string): string[] {
  return p.view.paths?.search.find((e) => e.type === type)?.values ?? [];
}

function refuseAdmin(email: string): never {
  throw new AppError(
    403,
    "agent_is_admin",
    `${email} belongs to an administrator of the portal; a launch can only log in agents. ` +
      "Use an agent's e-mail and id in context.user",
    [{ path: "context.user.email", message: "belongs to an administrator" }],
  );
}

function refuseDisabled(email: string): never {
  throw new AppError(
    403,
    "agent_disabled",
    `The agent ${email} is disabled, so no launch can log them in. An administrator can enable ` +
      "the agent again on the admin screens (Users) or with PATCH /api/v1/admin/users/{id}",
    [{ path: "context.user", message: "names a disabled agent" }],
  );
}

/**
 * The flow, step by step. The database work runs in ONE call of the SQL function launch_apply
 * (db/migrations/00013_launch_function.sql, whose steps carry the same numbers), so a launch costs
 * one round trip; every decision that answers the host is made here:
 *
 * 1. Lookups: the replay key is stored (a used one refuses the launch: `replayed`), the named
 *    session is locked (only the app's own), and settings, custom fields and the catalog entries
 *    named are read; `checkLookups` says why they refuse a launch.
 * 2. The agent and the customer are found or created, resolving identity conflicts in the spec's
 *    order; an administrator or a disabled agent is refused (`refuseAdmin`, `refuseDisabled`).
 * 3. The conflicts resolved become warnings, after the caller's and the payload's.
 * 4. The session (created and assigned, or updated), custom fields, devices, teams, the launch
 *    record, the portal login and the callback events (`session.created`; or `session.updated`,
 *    plus `session.assigned` when an open session moved to the agent).
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
  const freshness = meta.freshness ?? { protection: "off", replay: null };
  const input = {
    appId: meta.appId,
    appName: meta.appName,
    sessionId: p.session.id,
    replay: freshness.replay,
    categoryUids: searchValues(p, "category_uid"),
    pathUids: searchValues(p, "path_uid"),
    tags: searchValues(p, "tag"),
    agent: p.agent,
    customer: p.customer,
    session: {
      externalReference: p.session.externalReference,
      referenceId: p.session.referenceId,
      target: p.view.target,
      assign: p.session.assign,
    },
    customFields: p.session.customFields,
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
  // A unique violation means a concurrent launch committed a row first: a second pass finds it.
  for (let attempt = 1;; attempt++) {
    let outcome;
    try {
      outcome = await applyLaunch(deps.sql, input);
    } catch (err) {
      if (!isUniqueViolation(err) || attempt === 3) throw err;
      continue;
    }
    switch (outcome.kind) {
      case "done":
      case "dry_run":
        return { applied: outcome.applied, dryRun: outcome.kind === "dry_run" };
      case "refused_by_lookups":
        if (!outcome.lookups.replayFresh) throw replayed();
        checkLookups(p, outcome.lookups);
        throw new Error("launch_apply refused lookups that checkLookups accepts");
      case "refused_agent":
        if (outcome.agent.admin || outcome.agent.emailOwnerIsAdmin) refuseAdmin(p.agent.email);
        if (outcome.agent.disabled) refuseDisabled(p.agent.email);
        throw new Error("launch_apply refused an agent that the flow accepts");
    }
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
  if (applied.events) eventsCommitted();
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
 * launch would (same checks, same matching, same refusals) and writes nothing. Only sequences
 * advance (PostgreSQL never rolls them back), so ids may skip numbers.
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
