/**
 * The launch processing flow (spec §5.4) in ONE transaction: lookups, agent, customer, session,
 * custom fields, devices, teams, launch record and portal login. Either all of it is written or
 * none of it. Round trips: BEGIN, lookups, agent and customer, session and the rest, COMMIT = 5.
 * The dry run runs the same code and rolls back.
 */
import type { Tx } from "../../db/mod.ts";
import { isUniqueViolation } from "../../db/queries/apps.ts";
import {
  type LaunchLookups,
  launchLookups,
  type PeopleUpsert,
  upsertPeople,
  writeLaunch,
} from "../../db/queries/launch.ts";
import { newLoginToken } from "../auth/logins.ts";
import { PORTAL_LOGIN_HOURS } from "../auth/cookies.ts";
import type { Deps } from "../deps.ts";
import { AppError, type FieldError } from "../http/errors.ts";
import type { LaunchPayload } from "./payload.ts";

/** Where the launch comes from. */
export interface LaunchMeta {
  appId: number;
  appName: string;
  clientAddress: string | null;
  userAgent: string | null;
  /** The decoded payload as stored in the audit record. */
  payload: unknown;
}

/** A completed launch. */
export interface LaunchResult {
  launchId: number;
  sessionId: number;
  agentId: number;
  customerId: number;
  loginToken: string;
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

/**
 * Runs the agent-and-customer upsert, again when a concurrent launch inserted one of them first
 * (the side that already succeeded is then found and updated again, which changes nothing), and
 * turns a unique violation into a 409 naming the identity in conflict.
 */
async function upsertBoth(step: () => Promise<PeopleUpsert>, p: LaunchPayload) {
  for (let attempt = 0; attempt < 3; attempt++) {
    let out: PeopleUpsert;
    try {
      out = await step();
    } catch (err) {
      if (!isUniqueViolation(err)) throw err;
      const table = (err as { table_name?: string }).table_name;
      throw new AppError(
        409,
        "identity_conflict",
        table === "customers"
          ? `contactEmail ${p.customer.email} and contactId ${p.customer.externalId} belong to two different customers`
          : `The agent's external id and e-mail ${p.agent.email} belong to two different users`,
      );
    }
    if (out.agent && out.customer) return { agent: out.agent, customer: out.customer };
  }
  throw new Error("agent and customer: concurrent inserts kept winning");
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
  const found = await launchLookups(tx, lookupQuery(p));
  checkLookups(p, found);
  const { agent, customer } = await upsertBoth(
    () => upsertPeople(tx, p.agent, p.customer, found.session?.customerId ?? null),
    p,
  );
  if (agent.admin) refuseAdmin(p.agent.email);
  const { launchId, sessionId } = await writeLaunch(tx, {
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
    launch: { ...meta, view: p.view },
    login: { tokenHash: login.tokenHash, expiresAt: login.expiresAt },
  });
  return {
    result: {
      launchId,
      sessionId,
      agentId: agent.id,
      customerId: customer.id,
      loginToken: login.token,
    },
    plan: {
      agent: agent.created ? "create" : "update",
      customer: customer.created ? "create" : "update",
      session: found.session ? "update" : "create",
      assign: found.session ? p.session.assign && found.session.status === "open" : true,
    },
  };
}

/** Runs a launch; throws AppError for every refusal, after which nothing was written. */
export async function runLaunch(
  deps: Deps,
  p: LaunchPayload,
  meta: LaunchMeta,
): Promise<LaunchResult> {
  const login = await newLoginToken(PORTAL_LOGIN_HOURS);
  return await deps.sql.begin(async (tx: Tx) => (await launchIn(tx, p, meta, login)).result);
}

/** Thrown inside the dry run's transaction to roll it back with the plan it reached. */
class DryRunDone {
  constructor(readonly plan: LaunchPlan) {}
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
): Promise<LaunchPlan> {
  const login = await newLoginToken(PORTAL_LOGIN_HOURS);
  try {
    await deps.sql.begin(async (tx: Tx) => {
      throw new DryRunDone((await launchIn(tx, p, meta, login)).plan);
    });
  } catch (err) {
    if (err instanceof DryRunDone) return err.plan;
    throw err;
  }
  throw new Error("unreachable: the dry run's transaction always throws");
}
