/**
 * Try launch (the admin's launch previewer): builds a launch payload from a form, checks it with
 * the launch's own rules (each problem named by its form field), and signs it on the server with
 * the app's current key (the key never reaches the browser). The dry run runs the launch's own
 * steps and flow and rolls back; a launch is signed for the browser to post to the launch URL.
 */
import { listCustomFields } from "../../db/queries/settings.ts";
import type { LaunchApp } from "../../db/queries/launch.ts";
import type { Deps } from "../deps.ts";
import { AppError, type FieldError } from "../http/errors.ts";
import {
  ALGORITHM,
  FIELD_RULES,
  FLAVORS,
  freshnessFields,
  SEARCH_TYPES,
} from "../launch/contract.ts";
import { checkFreshness } from "../launch/freshness.ts";
import { type LaunchPlan, planLaunch } from "../launch/flow.ts";
import { type LaunchWarning, parseLaunchPayload } from "../launch/payload.ts";
import { signPayload } from "../launch/signed_request.ts";
import { signingKeys } from "../launch/signing_keys.ts";
import { mapPayload, verifyRequest } from "../launch/steps.ts";

/** The form fields that map one-to-one onto a payload path. */
const PATHS: Record<string, string> = {
  agentId: "context.user.id",
  agentEmail: "context.user.email",
  agentFirstName: "context.user.first_name",
  agentLastName: "context.user.last_name",
  agentLocale: "context.user.locale",
  contactId: "context.environment.parameters.contactId",
  contactFirstName: "context.environment.parameters.contactFirstName",
  contactLastName: "context.environment.parameters.contactLastName",
  contactEmail: "context.environment.parameters.contactEmail",
  contactPhone: "context.environment.parameters.contactPhone",
  referenceNumber: "context.environment.parameters.referenceNumber",
  referenceId: "context.environment.parameters.referenceId",
  sessionId: "context.environment.parameters.sessionId",
  target: "context.environment.parameters.target",
};
const PARAMS = "context.environment.parameters.";
/** Fields left out of the payload when blank (the others are sent, blank or not). */
const OPTIONAL = new Set(["agentLocale", "referenceId", "sessionId"]);
/** Where the portal opens: a new tab, or the iframe beside the form. */
export const OPEN_IN = ["tab", "iframe"] as const;

/** The Try launch form's values (custom fields as `cf_<name>`). */
export type TryForm = Record<string, string>;

/** The form as it first appears: the template's agent and customer, standard flavor, a tab. */
export function defaultTryForm(): TryForm {
  return {
    agentId: "agent42",
    agentEmail: "ada.lovelace@example.com",
    agentFirstName: "Ada",
    agentLastName: "Lovelace",
    agentLocale: "en",
    contactId: "C0099",
    contactFirstName: "Grace",
    contactLastName: "Hopper",
    contactEmail: "grace.hopper@example.org",
    contactPhone: "5559876543",
    referenceNumber: "CASE00017",
    referenceId: "",
    sessionId: "",
    target: "standard",
    assign: "on",
    pathsSearchType: "full_text",
    pathsSearchValues: "",
    pathsRemote: "",
    pathsAll: "",
    openIn: "tab",
  };
}

/** The form's values from a posted form (`str` reads one value); unknown fields are dropped. */
export function tryFormOf(read: (name: string) => string, customFields: string[]): TryForm {
  const names = [...Object.keys(defaultTryForm()), ...customFields.map((n) => `cf_${n}`)];
  return Object.fromEntries(names.map((name) => [name, read(name)]));
}

function set(target: Record<string, unknown>, path: string, value: unknown): void {
  const keys = path.split(".");
  let at = target;
  for (const key of keys.slice(0, -1)) {
    at[key] ??= {};
    at = at[key] as Record<string, unknown>;
  }
  at[keys.at(-1)!] = value;
}

/** The payload the form describes, without `issuedAt` and `nonce` (added when it is signed). */
export function tryPayload(f: TryForm, customFields: string[]): Record<string, unknown> {
  const payload: Record<string, unknown> = { algorithm: ALGORITHM };
  for (const [field, path] of Object.entries(PATHS)) {
    const value = (f[field] ?? "").trim();
    if (value || !OPTIONAL.has(field)) set(payload, path, value);
  }
  set(payload, `${PARAMS}assign`, f.assign === "on");
  // A full-text search is one text; the other types list values, comma-separated.
  const text = (f.pathsSearchValues ?? "").trim();
  const values = f.pathsSearchType === "full_text"
    ? [text].filter(Boolean)
    : text.split(/[\n,]/).map((v) => v.trim()).filter(Boolean);
  if (values.length || f.pathsRemote === "on" || f.pathsAll === "on") {
    const paths: Record<string, unknown> = {};
    if (values.length) paths.search = [{ search_type: f.pathsSearchType, search_values: values }];
    paths.remote = f.pathsRemote === "on";
    if (f.pathsAll === "on") paths.allPaths = true;
    set(payload, `${PARAMS}paths`, paths);
  }
  const custom = customFields.filter((n) => (f[`cf_${n}`] ?? "").trim());
  if (custom.length) {
    set(
      payload,
      `${PARAMS}customFields`,
      Object.fromEntries(custom.map((n) => [n, f[`cf_${n}`].trim()])),
    );
  }
  return payload;
}

/** The form field a payload path belongs to ("" when none does). */
export function formFieldOf(path: string): string {
  for (const [field, p] of Object.entries(PATHS)) if (path === p) return field;
  if (path.startsWith(`${PARAMS}paths.search`)) return "pathsSearchValues";
  if (path.startsWith(`${PARAMS}paths`)) return "pathsRemote";
  if (path.startsWith(`${PARAMS}customFields.`)) {
    return `cf_${path.slice(`${PARAMS}customFields.`.length).split(".")[0]}`;
  }
  if (path === `${PARAMS}assign`) return "assign";
  return "";
}

/** Problems by form field; those of no field (and a message) under "". */
export type TryErrors = Record<string, string>;

/** The form's problems by field, as the launch would name them, or null when there are none. */
export function checkTryForm(f: TryForm, customFields: string[]): TryErrors | null {
  const errors: TryErrors = {};
  if (!OPEN_IN.includes(f.openIn as typeof OPEN_IN[number])) {
    errors.openIn = "expected tab or iframe";
  }
  if (!(FLAVORS as readonly string[]).includes(f.target)) {
    errors.target = `expected ${FLAVORS.join(", ")}`;
  }
  if (!(SEARCH_TYPES as readonly string[]).includes(f.pathsSearchType)) {
    errors.pathsSearchType = `expected ${SEARCH_TYPES.join(", ")}`;
  }
  // The payload's own check of the agent id answers without naming the field: name it here.
  if (!FIELD_RULES.reference.pattern.test((f.agentId ?? "").trim())) {
    errors.agentId = f.agentId?.trim() ? FIELD_RULES.reference.message : "required";
  }
  if (!Object.keys(errors).length) {
    try {
      parseLaunchPayload(tryPayload(f, customFields));
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      for (const e of err.errors ?? []) {
        const field = formFieldOf(e.path);
        errors[field] ??= field ? e.message : `${e.path}: ${e.message}`;
      }
      if (!err.errors?.length) errors[""] = err.message;
    }
  }
  return Object.keys(errors).length ? errors : null;
}

/** What a dry run came to: the plan and warnings, or the refusal the launch would give. */
export type DryRun =
  | { ok: true; plan: LaunchPlan; warnings: LaunchWarning[] }
  | { ok: false; status: number; code: string; message: string; errors: FieldError[] };

/** A launch signed for the browser to post: the value and the `nonce` that finds its record. */
export interface SignedTry {
  signedRequest: string;
  nonce: string;
  payloadText: string;
}

/** The configured custom field names (the form's custom fields). */
export async function tryCustomFields(deps: Deps): Promise<string[]> {
  return (await listCustomFields(deps.sql)).map((f) => f.name);
}

/** The enabled app `appName` as the launch sees it; 409 when it is disabled, 404 when missing. */
async function launchAppOf(deps: Deps, appName: string): Promise<LaunchApp> {
  const app = await deps.apps.get(appName);
  if (!app) throw new AppError(404, "app_not_found", `Unknown application: ${appName}`);
  if (!app.enabled) {
    // What the launch would answer (404 app_not_found), said plainly on the admin's page.
    throw new AppError(409, "app_not_found", `${app.appName} is disabled: enable it to launch`);
  }
  return app;
}

/** Signs the form's payload, with a fresh issuedAt and nonce, with the app's current key. */
export async function signTry(
  deps: Deps,
  appName: string,
  f: TryForm,
  customFields: string[],
): Promise<SignedTry & { app: LaunchApp }> {
  const app = await launchAppOf(deps, appName);
  const key = (await signingKeys(deps, app)).find((k) => k.which === "current");
  if (!key) throw new Error(`${app.appName} has no signing key`);
  const fresh = freshnessFields();
  const payloadText = JSON.stringify({ ...tryPayload(f, customFields), ...fresh });
  return {
    app,
    signedRequest: await signPayload(payloadText, key.key),
    nonce: fresh.nonce,
    payloadText,
  };
}

/**
 * The dry run of the form's launch: signed, verified, mapped, parsed, checked for freshness and
 * planned as the launch endpoint's dry run does; nothing is written.
 */
export async function dryRunTry(
  deps: Deps,
  appName: string,
  f: TryForm,
  customFields: string[],
): Promise<DryRun> {
  const signed = await signTry(deps, appName, f, customFields);
  const { app } = signed;
  try {
    const keys = await signingKeys(deps, app);
    const verified = verifyRequest(signed.signedRequest, keys);
    const mapped = mapPayload(app, verified.payload);
    const parsed = parseLaunchPayload(mapped.payload);
    const freshness = checkFreshness(app, parsed.freshness, verified.signature, new Date());
    const result = await planLaunch(deps, parsed, {
      appId: app.id,
      appName: app.appName,
      clientAddress: null,
      userAgent: null,
      payload: mapped.logged,
      warnings: [...(verified.repaired ? [verified.repaired] : []), ...mapped.warnings],
      keyUsed: keys[verified.keyIndex].which,
      freshness,
      crm: null,
    });
    return { ok: true, plan: result.plan, warnings: result.warnings };
  } catch (err) {
    if (!(err instanceof AppError) || err.status >= 500) throw err;
    return {
      ok: false,
      status: err.status,
      code: err.code,
      message: err.message,
      errors: err.errors ?? [],
    };
  }
}
