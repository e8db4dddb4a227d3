/** The launch endpoint (POST {portal_url} + LAUNCH_ROUTE of the contract) and its dry run. */
import { Hono } from "hono";
import { cors } from "hono/cors";
import type { Context } from "hono";
import { limitBody } from "../http/body_limit.ts";
import { refuseWhenFailingTooOften } from "../http/failure_rate.ts";
import { cspNonce } from "../http/page_policy.ts";
import { cachedApp } from "./app_cache.ts";
import { insertFailedLaunch, type LaunchApp, reentryOf } from "../../db/queries/launch.ts";
import { sha256 } from "../crypto/hashing.ts";
import { checkFreshness, type FreshnessOutcome } from "./freshness.ts";
import type { Deps } from "../deps.ts";
import type { AppEnv } from "../http/env.ts";
import { AppError } from "../http/errors.ts";
import { log } from "../log.ts";
import { publicOrigin } from "../http/public_origin.ts";
import { type LaunchMeta, planLaunch, runLaunch } from "./flow.ts";
import { adapterOf } from "../callbacks/adapters/registry.ts";
import type { CrmContext } from "../callbacks/adapters/mod.ts";
import { destinationProblem } from "../callbacks/destination.ts";
import { secretContext } from "../crypto/secret_box.ts";
import { parseLaunchPayload } from "./payload.ts";
import { verifySignedRequest } from "./signed_request.ts";
import type { LaunchWarning } from "./payload.ts";
import { clientAddress } from "../http/client_address.ts";
import { signingKeys } from "./signing_keys.ts";
import { LAUNCH_ROUTE, VALIDATE_ROUTE } from "./contract.ts";
import { loginCookieValue, PORTAL_COOKIE, setPortalCookie } from "../auth/cookies.ts";
import { errorPage } from "./error_page.tsx";
import { frameAncestorsCsp, originAllowed } from "../http/frame_ancestors.ts";

/** Largest accepted launch body, in KiB. */
export const LAUNCH_BODY_LIMIT_KIB = 64;

/**
 * True when the caller is a browser: its Accept header lists text/html first (a form submission).
 * Everything else (curl's `*\/*`, `application/json`, no Accept at all) is answered with JSON.
 */
function prefersHtml(c: Context): boolean {
  const first = (c.req.header("Accept") ?? "").split(",")[0].split(";")[0].trim().toLowerCase();
  return first === "text/html";
}

async function readSignedRequest(c: Context): Promise<string | undefined> {
  const type = c.req.header("Content-Type")?.split(";")[0].trim().toLowerCase();
  if (type !== "application/x-www-form-urlencoded" && type !== "multipart/form-data") {
    throw new AppError(
      415,
      "unsupported_media_type",
      "Send an HTML form: application/x-www-form-urlencoded or multipart/form-data with the field signed_request",
    );
  }
  const body = await c.req.parseBody();
  const value = body.signed_request;
  if (value !== undefined && typeof value !== "string") {
    throw new AppError(400, "malformed_signed_request", "signed_request must be a text field");
  }
  return value;
}

/** Launches for apps that do not exist, since this process started (they write no row). */
let unknownAppLaunches = 0;

/** Launches for apps that do not exist, since this process started. */
export function unknownAppLaunchCount(): number {
  return unknownAppLaunches;
}

/**
 * The CRM context to keep for callbacks: its instance URL must pass the callback destination
 * rules (else it is dropped with a warning) and its token is sealed to the app.
 */
async function crmContext(
  deps: Deps,
  appId: number,
  crm: CrmContext | null,
  warnings: LaunchWarning[],
): Promise<LaunchMeta["crm"]> {
  if (!crm) return null;
  const problem = destinationProblem(crm.instanceUrl, deps.config.callbackAllowPrivateNetworks);
  if (problem) {
    warnings.push({
      path: "client.instanceUrl",
      code: "crm_instance_url_refused",
      message: `${problem}; callbacks to this session's CRM instance are not possible`,
    });
    return null;
  }
  return {
    instanceUrl: crm.instanceUrl,
    oauthTokenSealed: crm.oauthToken
      ? await deps.secrets.encrypt(crm.oauthToken, secretContext(appId, "crm_token"))
      : null,
  };
}

/** Launch routes, mounted at PORTAL_PREFIX. */
export function launchRoutes(deps: Deps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const prefix = deps.config.portalPrefix;
  const limit = limitBody(LAUNCH_BODY_LIMIT_KIB);

  /** Runs one launch or dry run; turns every refusal into the response the caller expects. */
  async function handle(c: Context<AppEnv>, dryRun: boolean): Promise<Response> {
    const appName = c.req.param("app_name") ?? "";
    let appRow: LaunchApp | null = null;
    let payload: Record<string, unknown> | null = null;
    let warnings: LaunchWarning[] = [];
    let replay: FreshnessOutcome["replay"] = null;
    const address = clientAddress(deps, c);
    try {
      refuseWhenFailingTooOften(deps.failures.launch, address, "launches");
      appRow = await cachedApp(deps, appName);
      if (!appRow || !appRow.enabled) {
        appRow = null;
        throw new AppError(404, "app_not_found", `Unknown application: ${appName}`);
      }
      const raw = await readSignedRequest(c);
      const keys = await signingKeys(deps, appRow);
      const verified = verifySignedRequest(raw, keys.map((k) => k.key));
      if (verified.repaired) warnings = [verified.repaired];
      // The app's implementor class maps its CRM's request onto the payload contract.
      const mapped = adapterOf(appRow.implementor).mapLaunch(verified.payload);
      payload = mapped.logged;
      warnings = [...warnings, ...mapped.warnings];
      const crm = await crmContext(deps, appRow.id, mapped.crm, warnings);
      const parsed = parseLaunchPayload(mapped.payload);
      const freshness = checkFreshness(appRow, parsed.freshness, verified.signature, new Date());
      replay = freshness.replay;
      const meta = {
        appId: appRow.id,
        appName: appRow.appName,
        clientAddress: address,
        userAgent: c.req.header("User-Agent") ?? null,
        payload,
        warnings,
        keyUsed: keys[verified.keyIndex].which,
        freshness,
        crm,
      };
      if (dryRun) {
        const plan = await planLaunch(deps, parsed, meta);
        return c.json({ ok: true, plan: plan.plan, warnings: plan.warnings });
      }
      const result = await runLaunch(deps, parsed, meta);
      setPortalCookie(c, prefix, result.loginToken);
      return landed(c, result.sessionId, result.launchId, { ...result, warnings: result.warnings });
    } catch (err) {
      const refusal = err instanceof AppError ? err : null;
      if (!dryRun && refusal?.code === "launch_replayed" && appRow && replay) {
        const back = await reentry(c, appRow.id, replay.key);
        if (back) return back;
      }
      if (refusal?.status !== 429) deps.failures.launch.fail(address ?? "unknown");
      if (!dryRun && appRow) {
        // Every attempt for a known app is in the launch log, an unexpected failure too (then
        // rethrown: a 500).
        await insertFailedLaunch(deps.sql, {
          appId: appRow.id,
          appName: appRow.appName,
          outcome: refusal?.code ?? "internal_error",
          message: refusal?.message ?? "Internal server error",
          clientAddress: address,
          userAgent: c.req.header("User-Agent") ?? null,
          payload,
          warnings,
        }).catch((e) => log.error("cannot record failed launch", { error: e.message }));
      } else if (!dryRun && refusal?.code === "app_not_found") {
        // Unauthenticated and unbounded: logged and counted, never written to the database.
        unknownAppLaunches++;
        log.warn("launch for an unknown app", {
          appName: appName.slice(0, 64),
          clientAddress: address,
          count: unknownAppLaunches,
        });
      }
      if (!refusal || dryRun || !prefersHtml(c)) throw err;
      const origins = appRow?.frameAncestors ?? [];
      c.header("Content-Security-Policy", frameAncestorsCsp(origins));
      return c.html(errorPage(refusal, origins, cspNonce(c)), refusal.status);
    }
  }

  /** The answer of a launch that landed: 303 to the session screen, or JSON. */
  function landed(
    c: Context<AppEnv>,
    sessionId: number,
    launchId: number,
    body: { agentId?: number; customerId?: number; warnings: LaunchWarning[] },
  ): Response {
    const redirectUrl = `${publicOrigin(deps.config, c)}${prefix}/sessions/${sessionId}` +
      `?launch=${launchId}`;
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
   * A replay from the browser that holds the live login its first launch created (a double
   * submit, a reload) goes back to that session: no new login, nothing rewritten.
   */
  async function reentry(c: Context<AppEnv>, appId: number, replayKey: string) {
    const token = loginCookieValue(c, PORTAL_COOKIE);
    if (!token) return null;
    const found = await reentryOf(deps.sql, { tokenHash: sha256(token), appId, replayKey });
    return found ? landed(c, found.sessionId, found.launchId, { warnings: [] }) : null;
  }

  app.post(LAUNCH_ROUTE, limit, (c) => handle(c, false));

  // The dry run may be called from the app's own pages: CORS for its allowed frame ancestors.
  const dryRunCors = cors({
    origin: async (origin, c) => {
      const row = origin ? await cachedApp(deps, c.req.param("app_name") ?? "") : null;
      return row && originAllowed(origin, row.frameAncestors) ? origin : null;
    },
    allowMethods: ["POST"],
    allowHeaders: ["Content-Type"],
    maxAge: 600,
  });
  app.options(VALIDATE_ROUTE, dryRunCors);
  app.post(VALIDATE_ROUTE, dryRunCors, limit, (c) => handle(c, true));

  for (const path of [LAUNCH_ROUTE, VALIDATE_ROUTE]) {
    app.all(path, (c) => {
      const url = new URL(c.req.url);
      return c.text(`Cannot ${c.req.method} ${url.pathname}`, 405, {
        Allow: path === VALIDATE_ROUTE ? "POST, OPTIONS" : "POST",
      });
    });
  }
  return app;
}
