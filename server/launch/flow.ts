/**
 * The launch processing flow (spec §5.4) in ONE transaction: lookups, agent, customer, session,
 * custom fields, devices, teams, launch record and portal login. Either all of it is written or
 * none of it. Round trips: BEGIN, lookups, agent and customer, session and the rest, COMMIT = 5.
 * The dry run runs the same code and rolls back.
 */
import type { Tx } from "../../db/mod.ts";
import { isUniqueViolation } from "../../db/queries/apps.ts";
import { type LaunchLookups, launchLookups, writeLaunch } from "../../db/queries/launch.ts";
import {
  type AgentUpsert,
  type CustomerUpsert,
  type PeopleUpsert,
  upsertPeople,
} from "../../db/queries/launch_people.ts";
import { type FreshnessOutcome, replayed } from "./freshness.ts";
import { newLoginToken } from "../auth/logins.ts";
import { PORTAL_LOGIN_HOURS } from "../auth/cookies.ts";
import type { Deps } from "../deps.ts";
import { AppError, type FieldError } from "../http/errors.ts";
import { eventsCommitted, type SessionEvent } from "../callbacks/events.ts";
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

function lookupQuery(p: LaunchPayload) {
  const values = (type: string) => p.view.paths?.search.find((e) => e.type === type)?.values ?? [];
  return {
    sessionId: p.session.id,
    customFields: Object.keys(p.session.customFields),
    categoryUids: values("category_uid"),
    pathUids: values("path_uid"),
    tags: values("tag"),
  };
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
 * Runs the agent-and-customer upsert, again when a concurrent launch inserted one of them first
 * (the side that already succeeded is then found and updated again, which changes nothing).
 */
async function upsertBoth(step: () => Promise<PeopleUpsert>) {
  for (let attempt = 0; attempt < 3; attempt++) {
    const out = await step();
    if (out.agent && out.customer) return { agent: out.agent, customer: out.customer };
  }
  throw new Error("agent and customer: concurrent inserts kept winning");
}

/** The identity conflicts the upsert resolved, as warnings naming the ids involved. */
function conflictWarnings(
  p: LaunchPayload,
  agent: AgentUpsert,
  customer: CustomerUpsert,
): LaunchWarning[] {
  const out: LaunchWarning[] = [];
  if (agent.emailOwnerId !== null) {
    out.push({
      path: "context.user.email",
      code: "agent_email_in_use",
      message: `${p.agent.email} belongs to another user (${agent.emailOwnerId}); agent ` +
        `${agent.id}, found by its external id, keeps its own e-mail`,
      agentId: agent.id,
      otherUserId: agent.emailOwnerId,
    });
  }
  const previous = customer.previousExternalId;
  if (previous !== null && previous !== p.customer.externalId) {
    out.push({
      path: `${PARAMS}.contactId`,
      code: "customer_external_id_differs",
      message: `customer ${customer.id}, found by contactEmail, keeps its external id ` +
        `${previous}; the launch sent ${p.customer.externalId}`,
      customerId: customer.id,
      keptExternalId: previous,
      sentExternalId: p.customer.externalId,
    });
  }
  if (customer.externalIdOwnerId !== null) {
    out.push({
      path: `${PARAMS}.contactId`,
      code: "customer_external_id_in_use",
      message: `contactId ${p.customer.externalId} belongs to customer ` +
        `${customer.externalIdOwnerId}; it was not moved to customer ${customer.id}`,
      customerId: customer.id,
      otherCustomerId: customer.externalIdOwnerId,
    });
  }
  if (customer.emailOwnerId !== null) {
    out.push({
      path: `${PARAMS}.contactEmail`,
      code: "customer_email_in_use",
      message: `${p.customer.email} belongs to customer ${customer.emailOwnerId}; customer ` +
        `${customer.id} keeps its own e-mail`,
      customerId: customer.id,
      otherCustomerId: customer.emailOwnerId,
    });
  }
  return out;
}

/** What one pass of the flow wrote (or, in a dry run, would have written). */
interface FlowOutcome {
  result: LaunchResult;
  plan: LaunchPlan;
}

/** The flow inside the caller's transaction: every check, lookup and write of a launch. */
async function launchIn(
  tx: Tx,
  p: LaunchPayload,
  meta: LaunchMeta,
  login: { token: string; tokenHash: string; expiresAt: Date },
): Promise<FlowOutcome> {
  const freshness = meta.freshness ?? { protection: "off", replay: null };
  const replay = freshness.replay && { appId: meta.appId, ...freshness.replay };
  const found = await launchLookups(tx, { ...lookupQuery(p), appId: meta.appId, replay });
  if (!found.replayFresh) throw replayed();
  checkLookups(p, found);
  const { agent, customer } = await upsertBoth(
    () => upsertPeople(tx, meta.appId, p.agent, p.customer, found.session?.customerId ?? null),
  );
  if (agent.admin || agent.emailOwnerIsAdmin) refuseAdmin(p.agent.email);
  if (agent.disabled) refuseDisabled(p.agent.email);
  const warnings = [
    ...(meta.warnings ?? []),
    ...p.warnings,
    ...conflictWarnings(p, agent, customer),
  ];
  const { launchId, sessionId, events } = await writeLaunch(tx, {
    session: {
      id: found.session?.id ?? null,
      customerId: customer.id,
      agentId: agent.id,
      externalReference: p.session.externalReference,
      referenceId: p.session.referenceId,
      appId: meta.appId,
      target: p.view.target,
      assign: p.session.assign,
    },
    customFields: p.session.customFields,
    // Devices are added to a session; a repeated serial (same kind) updates that device.
    devices: p.session.devices,
    teams: p.agent.teams ?? [],
    launch: {
      ...meta,
      view: p.view,
      warnings,
      keyUsed: meta.keyUsed ?? "current",
      protection: freshness.protection,
      replayKey: freshness.replay?.key ?? null,
    },
    login: { tokenHash: login.tokenHash, expiresAt: login.expiresAt },
    events: launchEvents(found.session, agent.id, p.session.assign),
    eventTimestamp: new Date().toISOString(),
    crm: meta.crm ?? null,
  });
  return {
    result: {
      launchId,
      sessionId,
      agentId: agent.id,
      customerId: customer.id,
      loginToken: login.token,
      warnings,
      events,
    },
    plan: {
      agent: agent.created ? "create" : "update",
      customer: customer.created ? "create" : "update",
      session: found.session ? "update" : "create",
      assign: found.session ? p.session.assign && found.session.status === "open" : true,
    },
  };
}

/**
 * The callback events of a launch: `session.created` for a new session; `session.updated`
 * (customer data and custom fields are written again) for an existing one, and
 * `session.assigned` when the launch moved an open session to its agent.
 */
function launchEvents(
  before: LaunchLookups["session"],
  agentId: number,
  assign: boolean,
): SessionEvent[] {
  if (!before) return [{ type: "session.created" }];
  const events: SessionEvent[] = [{ type: "session.updated" }];
  if (assign && before.status === "open" && before.assigneeId !== agentId) {
    events.push({ type: "session.assigned" });
  }
  return events;
}

/** Runs a launch; throws AppError for every refusal, after which nothing was written. */
export async function runLaunch(
  deps: Deps,
  p: LaunchPayload,
  meta: LaunchMeta,
): Promise<LaunchResult> {
  const login = await newLoginToken(PORTAL_LOGIN_HOURS);
  const done = await inTransaction(deps, (tx) => launchIn(tx, p, meta, login));
  if (done.result.events) eventsCommitted();
  return done.result;
}

/**
 * Runs `work` in a transaction, again (up to 3 times) when a concurrent launch made it hit a
 * unique index: identities are resolved, never refused, so a violation only means that the other
 * launch committed first, and a second pass finds its rows.
 */
async function inTransaction<T>(deps: Deps, work: (tx: Tx) => Promise<T>): Promise<T> {
  for (let attempt = 1;; attempt++) {
    try {
      return await deps.sql.begin(work) as T;
    } catch (err) {
      if (!isUniqueViolation(err) || attempt === 3) throw err;
    }
  }
}

/** What the dry run answers: the plan and the warnings the launch would record. */
export interface DryRunResult {
  plan: LaunchPlan;
  warnings: LaunchWarning[];
}

/** Thrown inside the dry run's transaction to roll it back with what it reached. */
class DryRunDone {
  constructor(readonly result: DryRunResult) {}
}

/**
 * The dry run: the launch's own flow, in a transaction that is always rolled back, so it answers
 * exactly what the launch would (same checks, same matching, same refusals) and writes nothing.
 * Only sequences advance (PostgreSQL never rolls them back), so ids may skip numbers.
 */
export async function planLaunch(
  deps: Deps,
  p: LaunchPayload,
  meta: LaunchMeta,
): Promise<DryRunResult> {
  const login = await newLoginToken(PORTAL_LOGIN_HOURS);
  try {
    await inTransaction(deps, async (tx) => {
      const { plan, result } = await launchIn(tx, p, meta, login);
      throw new DryRunDone({ plan, warnings: result.warnings });
    });
  } catch (err) {
    if (err instanceof DryRunDone) return err.result;
    throw err;
  }
  throw new Error("unreachable: the dry run's transaction always throws");
}
