/**
 * The steps of one launch, in the order routes.ts runs them: limitFailures, findApp,
 * readSignedRequest, verifyRequest, mapPayload, sealCrmToken, (checkFreshness, freshness.ts),
 * then runFlow or planFlow. When a step refuses: reenterSession (a replay from the browser that
 * holds its login), countFailure, recordFailure or countUnknownApp, answerFailure. Each step is
 * small and takes only what it uses, so it can be tested alone.
 */
import type { Context } from "hono";
import type { SignatureDiagnosis } from "./signature_diagnosis.ts";
import { insertFailedLaunch, type LaunchApp, reentryOf } from "../../db/queries/launch.ts";
import { loginCookieValue, PORTAL_COOKIE, setPortalCookie } from "../auth/cookies.ts";
import { adapterOf } from "../callbacks/adapters/registry.ts";
import type { CrmContext, LaunchMapping } from "../callbacks/adapters/mod.ts";
import { instanceOrigin } from "../callbacks/destination.ts";
import type { Config } from "../config.ts";
import { sha256 } from "../crypto/hashing.ts";
import { type SecretBox, secretContext } from "../crypto/secret_box.ts";
import type { Deps } from "../deps.ts";
import type { AppEnv } from "../http/env.ts";
import { AppError, asAppError } from "../http/errors.ts";
import { refuseWhenFailingTooOften } from "../http/failure_rate.ts";
import { formValues } from "../http/form_value.ts";
import { frameAncestorsCsp, originAllowed } from "../http/frame_ancestors.ts";
import { isFormType, mediaType } from "../http/media_type.ts";
import { cspNonce } from "../http/page_policy.ts";
import { requestOrigin } from "../http/public_origin.ts";
import { log } from "../log.ts";
import { SIGNED_REQUEST_FIELD } from "./contract.ts";
import { continuePage, needsContinue } from "./continue.tsx";
import { errorPage } from "./error_page.tsx";
import type { FreshnessOutcome } from "./freshness.ts";
import { type LaunchMeta, planLaunch, runLaunch } from "./flow.ts";
import type { LaunchPayload, LaunchWarning } from "./payload.ts";
import { type VerifiedRequest, verifySignedRequest } from "./signed_request.ts";
import type { SigningKey } from "./signing_keys.ts";

/**
 * True when the caller is a browser: its Accept header lists text/html first (a form submission).
 * Everything else (curl's `*\/*`, `application/json`, no Accept at all) is answered with JSON.
 */
function prefersHtml(c: Context): boolean {
  const first = (c.req.header("Accept") ?? "").split(",")[0].split(";")[0].trim().toLowerCase();
  return first === "text/html";
}

/** Step: 429 `too_many_failures` when the client address failed too many launches lately. */
export function limitFailures(
  deps: { failures: Pick<Deps["failures"], "launch"> },
  address: string | null,
): void {
  refuseWhenFailingTooOften(deps.failures.launch, address, "launches");
}

/** Step: the enabled app named `appName`; 404 `app_not_found` for a missing or disabled one. */
export async function findApp(deps: Deps, appName: string): Promise<LaunchApp> {
  const app = await deps.apps.get(appName);
  if (!app || !app.enabled) {
    throw new AppError(404, "app_not_found", `Unknown application: ${appName}`);
  }
  return app;
}

/**
 * Step: a launch posted by a page of a site the app does not allow is refused with 403
 * `origin_not_allowed` (a signed request replayed from another site would sign the visitor's
 * browser in). The allowed origins are the app's frame ancestors and the service's own; a request
 * without `Origin` (not a browser's) or for an app without frame ancestors is not checked. True
 * when the launch may sign in only through the continue page (continue.tsx needsContinue:
 * `Origin: null`).
 */
export function checkOrigin(config: Config, app: LaunchApp, origin: string | undefined): boolean {
  if (needsContinue(app, origin)) return true;
  // Past needsContinue, `Origin: null` comes only for an app without frame ancestors.
  if (!origin || !app.frameAncestors.length) return false;
  if (originAllowed(origin, app.frameAncestors) || origin === new URL(config.publicUrl).origin) {
    return false;
  }
  throw new AppError(
    403,
    "origin_not_allowed",
    `A launch posted from ${origin} is refused: ${app.appName} allows launches only from its ` +
      "frame ancestors. Add the origin to the app's frame ancestors, or post from an allowed page",
    [{ path: "Origin", message: `${origin} is not among the app's allowed origins` }],
  );
}

/**
 * Step: the form field SIGNED_REQUEST_FIELD of an HTML form post (undefined when absent); 415
 * for a body that is not a form, 400 when the field is a file.
 */
export async function readSignedRequest(c: Context): Promise<string | undefined> {
  const type = mediaType(c);
  if (!isFormType(type)) {
    throw new AppError(
      415,
      "unsupported_media_type",
      "Send an HTML form: application/x-www-form-urlencoded or multipart/form-data with the " +
        `field ${SIGNED_REQUEST_FIELD}`,
    );
  }
  // A form post is parsed from the body's text (which refuseNul has read and Hono keeps): Hono's
  // parseBody would rebuild it twice as a Response to hand it to FormData.
  const values = type === "application/x-www-form-urlencoded"
    ? formValues(await c.req.text(), SIGNED_REQUEST_FIELD)
    : [(await c.req.parseBody({ all: true }))[SIGNED_REQUEST_FIELD] ?? []].flat();
  // Two of them (a page with the hidden field twice): which one was meant is not ours to guess.
  if (values.length > 1) {
    throw new AppError(
      400,
      "malformed_signed_request",
      `${SIGNED_REQUEST_FIELD} was sent ${values.length} times: send the field once`,
    );
  }
  const value = values[0];
  if (value !== undefined && typeof value !== "string") {
    throw new AppError(
      400,
      "malformed_signed_request",
      `${SIGNED_REQUEST_FIELD} must be a text field`,
    );
  }
  return value;
}

/** Step: verifies the signed request with any of the app's live keys and decodes its payload. */
export function verifyRequest(raw: string | undefined, keys: SigningKey[]): VerifiedRequest {
  return verifySignedRequest(raw, keys.map((k) => k.key));
}

/** Step: the app's implementor class maps its CRM's request onto the payload contract. */
export function mapPayload(
  app: Pick<LaunchApp, "implementor">,
  decoded: Record<string, unknown>,
): LaunchMapping {
  return adapterOf(app.implementor).mapLaunch(decoded);
}

/**
 * Step: the CRM context to keep for callbacks. Its instance URL is kept as its origin
 * (`https://host[:port]`); one with `{` or `}`, credentials, or that breaks the callback
 * destination rules is dropped, with the CRM's token, and a `crm_instance_url_refused` warning
 * is added to `warnings`. The token is sealed to the app.
 */
export async function sealCrmToken(
  deps: {
    config: Pick<Config, "callbackAllowPrivateNetworks">;
    secrets: Pick<SecretBox, "encrypt">;
  },
  appId: number,
  crm: CrmContext | null,
  warnings: LaunchWarning[],
): Promise<LaunchMeta["crm"]> {
  if (!crm) return null;
  const checked = instanceOrigin(crm.instanceUrl, deps.config.callbackAllowPrivateNetworks);
  if ("problem" in checked) {
    warnings.push({
      path: "client.instanceUrl",
      code: "crm_instance_url_refused",
      message: `client.instanceUrl is refused: ${checked.problem}. Send the CRM instance's ` +
        "origin, such as https://acme.my.salesforce.com; until then callbacks to this " +
        "session's CRM instance are not possible",
    });
    return null;
  }
  return {
    instanceUrl: checked.origin,
    oauthTokenSealed: crm.oauthToken
      ? await deps.secrets.encrypt(crm.oauthToken, secretContext(appId, "crm_token"))
      : null,
  };
}

/**
 * Step: runs the launch, sets the portal login cookie and answers as `landed` does. With
 * `viaContinue` (the app, for a launch posted by a page without an origin) no cookie is set: a
 * browser gets the continue page (continue.tsx), any other caller `landed`'s JSON.
 */
export async function runFlow(
  c: Context<AppEnv>,
  deps: Deps,
  payload: LaunchPayload,
  meta: LaunchMeta,
  viaContinue: Pick<LaunchApp, "frameAncestors" | "appName"> | null = null,
): Promise<Response> {
  const result = await runLaunch(deps, payload, meta);
  if (!viaContinue) setPortalCookie(c, deps.config.portalPrefix, result.loginToken);
  else if (prefersHtml(c)) {
    c.set("launchId", result.launchId);
    return continuePage(c, deps.config, viaContinue, {
      agent: payload.agent,
      appName: viaContinue.appName,
      loginToken: result.loginToken,
    });
  }
  return landed(c, deps.config, result.sessionId, result.launchId, result);
}

/** Step (the dry run): plans the launch, writes nothing, answers the plan as JSON. */
export async function planFlow(
  c: Context<AppEnv>,
  deps: Deps,
  payload: LaunchPayload,
  meta: LaunchMeta,
): Promise<Response> {
  const plan = await planLaunch(deps, payload, meta);
  return c.json({ ok: true, plan: plan.plan, warnings: plan.warnings });
}

/** The session screen a launch lands on, on the origin the request came to. */
export function sessionScreenUrl(
  c: Context,
  config: Config,
  sessionId: number,
  launchId: number,
): string {
  return `${requestOrigin(config, c)}${config.portalPrefix}/sessions/${sessionId}` +
    `?launch=${launchId}`;
}

/** The answer of a launch that landed: 303 to the session screen, or JSON. */
export function landed(
  c: Context<AppEnv>,
  config: Config,
  sessionId: number,
  launchId: number,
  body: { agentId?: number; customerId?: number; warnings: LaunchWarning[] },
): Response {
  c.set("launchId", launchId);
  const redirectUrl = sessionScreenUrl(c, config, sessionId, launchId);
  if (prefersHtml(c)) return c.redirect(redirectUrl, 303);
  return c.json({
    sessionId,
    agentId: body.agentId,
    customerId: body.customerId,
    launchId,
    redirectUrl,
    warnings: body.warnings,
  });
}

/**
 * Failure step: a replay (`launch_replayed`) from the browser that holds the live login its first
 * launch created (a double submit, a reload) goes back to that session: no new login, nothing
 * rewritten. Null when the refusal is another one or the browser holds no such login.
 */
export async function reenterSession(
  c: Context<AppEnv>,
  deps: Deps,
  refusal: AppError | null,
  app: Pick<LaunchApp, "id"> | null,
  replay: FreshnessOutcome["replay"],
): Promise<Response | null> {
  if (refusal?.code !== "launch_replayed" || !app || !replay) return null;
  const token = loginCookieValue(c, PORTAL_COOKIE);
  if (!token) return null;
  const found = await reentryOf(deps.sql, {
    tokenHash: sha256(token),
    appId: app.id,
    replayKey: replay.key,
  });
  if (!found) return null;
  c.set("launchReentered", true);
  return landed(c, deps.config, found.sessionId, found.launchId, { warnings: [] });
}

/**
 * The refusal a launch failure answers with: an AppError as it is, a database fault as 503
 * `database_unavailable` (never counted, never written to the launch log), null for anything
 * unexpected.
 */
export function launchRefusal(err: unknown): AppError | null {
  return asAppError(err);
}

/** Failure step: counts a failure against the client address (a 429 itself does not count). */
export function countFailure(
  deps: { failures: Pick<Deps["failures"], "launch"> },
  refusal: AppError | null,
  address: string | null,
): void {
  // Only failures the client caused count: a 429 is the limit itself, and a 5xx (no refusal: a
  // database fault, say) is the service's, which must not lock every address out.
  if (refusal && refusal.status < 500 && refusal.status !== 429) {
    deps.failures.launch.fail(address);
  }
}

/** What the launch log keeps of a failed launch for a known app. */
export interface FailedAttempt {
  app: Pick<LaunchApp, "id" | "appName">;
  clientAddress: string | null;
  userAgent: string | null;
  /** The decoded request as the launch log keeps it; null when it was not decoded. */
  payload: Record<string, unknown> | null;
  warnings: LaunchWarning[];
  /** The Inspector's diagnosis of the signed_request (null when none was read). */
  diagnosis?: SignatureDiagnosis | null;
}

/**
 * Failure step: writes the failed attempt to the launch log, an unexpected failure (`refusal`
 * null) as `internal_error`; returns its launch-log id. A failure to write is logged, never
 * thrown (then null). Nothing is written while the database is unavailable (the write would
 * wait for it again).
 */
export async function recordFailure(
  deps: Pick<Deps, "sql">,
  refusal: AppError | null,
  attempt: FailedAttempt,
): Promise<number | null> {
  if (refusal?.code === "database_unavailable") return null;
  return await insertFailedLaunch(deps.sql, {
    appId: attempt.app.id,
    appName: attempt.app.appName,
    outcome: refusal?.code ?? "internal_error",
    message: refusal?.message ?? "Internal server error",
    clientAddress: attempt.clientAddress,
    userAgent: attempt.userAgent,
    payload: attempt.payload,
    warnings: attempt.warnings,
    errors: refusal?.errors ?? [],
    diagnosis: attempt.diagnosis ?? null,
  }).catch((e) => {
    log.error("cannot record failed launch", { error: e.message });
    return null;
  });
}

/** Launches for apps that do not exist, counted by one instance of the launch routes. */
export interface UnknownAppCounter {
  launches: number;
}

/**
 * Failure step for a launch to an app that does not exist: unauthenticated and unbounded, so it
 * is logged and counted, never written to the database. Returns the new count.
 */
export function countUnknownApp(
  counter: UnknownAppCounter,
  appName: string,
  address: string | null,
): number {
  counter.launches++;
  log.warn("launch for an unknown app", {
    appName: appName.slice(0, 64),
    clientAddress: address,
    count: counter.launches,
  });
  return counter.launches;
}

/**
 * Failure step: a browser (Accept text/html first) gets the refusal (a database fault: the 503
 * `database_unavailable`, with Retry-After) as the error page, framable by the app's frame
 * ancestors; anything else is thrown for the error handler (JSON), an unexpected error as it is.
 */
export function answerFailure(
  c: Context<AppEnv>,
  err: unknown,
  app: Pick<LaunchApp, "frameAncestors"> | null,
): Response {
  const refusal = launchRefusal(err);
  if (!refusal || !prefersHtml(c)) throw refusal ?? err;
  c.set("errorCode", refusal.code);
  if (refusal.code === "database_unavailable") {
    log.warn("database unavailable", { requestId: c.get("requestId"), error: String(err) });
  }
  for (const [name, value] of Object.entries(refusal.headers ?? {})) c.header(name, value);
  const origins = app?.frameAncestors ?? [];
  c.header("Content-Security-Policy", frameAncestorsCsp(origins));
  return c.html(
    errorPage(refusal, origins, cspNonce(c), { requestId: c.get("requestId") }),
    refusal.status,
  );
}
