/** The launch endpoint `POST {portal_url}/api/auth/app/:app_name` and its dry run. */
import { Hono } from "hono";
import type { Context } from "hono";
import { limitBody } from "../http/body_limit.ts";
import type { AppRow } from "../../db/queries/apps.ts";
import { cachedApp } from "./app_cache.ts";
import { insertFailedLaunch } from "../../db/queries/launch.ts";
import type { Deps } from "../deps.ts";
import type { AppEnv } from "../http/env.ts";
import { AppError } from "../http/errors.ts";
import { log } from "../log.ts";
import { publicOrigin } from "../http/public_origin.ts";
import { planLaunch, runLaunch } from "./flow.ts";
import { parseLaunchPayload } from "./payload.ts";
import { verifySignedRequest } from "./signed_request.ts";
import { clientAddress } from "../http/client_address.ts";
import { signingKeys } from "./signing_keys.ts";
import { setPortalCookie } from "../auth/cookies.ts";
import { errorPage } from "./error_page.tsx";
import { frameAncestorsCsp, originAllowed } from "../http/frame_ancestors.ts";

/** Largest accepted launch body, in KiB. */
export const LAUNCH_BODY_LIMIT_KIB = 64;

function wantsJson(c: Context): boolean {
  const accept = c.req.header("Accept") ?? "";
  return accept.includes("application/json") && !accept.includes("text/html");
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

/** Launch routes, mounted at PORTAL_PREFIX. */
export function launchRoutes(deps: Deps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const prefix = deps.config.portalPrefix;
  const limit = limitBody(LAUNCH_BODY_LIMIT_KIB);

  /** Runs one launch or dry run; turns every refusal into the response the caller expects. */
  async function handle(c: Context<AppEnv>, dryRun: boolean): Promise<Response> {
    const appName = c.req.param("app_name") ?? "";
    let appRow: AppRow | null = null;
    let payload: Record<string, unknown> | null = null;
    try {
      appRow = await cachedApp(deps, appName);
      if (!appRow || !appRow.enabled) {
        appRow = null;
        throw new AppError(404, "app_not_found", `Unknown application: ${appName}`);
      }
      const raw = await readSignedRequest(c);
      const verified = await verifySignedRequest(raw, await signingKeys(deps, appRow));
      payload = verified.payload;
      const parsed = parseLaunchPayload(verified.payload);
      const meta = {
        appId: appRow.id,
        appName: appRow.appName,
        clientAddress: clientAddress(deps, c),
        userAgent: c.req.header("User-Agent") ?? null,
        payload,
      };
      if (dryRun) return c.json({ ok: true, plan: await planLaunch(deps, parsed, meta) });
      const result = await runLaunch(deps, parsed, meta);
      setPortalCookie(c, prefix, result.loginToken);
      const redirectUrl = `${publicOrigin(deps.config, c)}${prefix}/sessions/${result.sessionId}` +
        `?launch=${result.launchId}`;
      if (wantsJson(c)) {
        return c.json({
          sessionId: result.sessionId,
          agentId: result.agentId,
          customerId: result.customerId,
          launchId: result.launchId,
          redirectUrl,
        });
      }
      return c.redirect(redirectUrl, 303);
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      if (!dryRun) {
        await insertFailedLaunch(deps.sql, {
          appId: appRow?.id ?? null,
          appName,
          outcome: err.code,
          message: err.message,
          clientAddress: clientAddress(deps, c),
          userAgent: c.req.header("User-Agent") ?? null,
          payload,
        }).catch((e) => log.error("cannot record failed launch", { error: e.message }));
      }
      if (dryRun || wantsJson(c)) throw err;
      const origins = appRow?.frameAncestors ?? [];
      c.header("Content-Security-Policy", frameAncestorsCsp(origins));
      return c.html(errorPage(err, origins), err.status);
    }
  }

  app.post("/api/auth/app/:app_name", limit, (c) => handle(c, false));

  app.post("/api/auth/app/:app_name/validate", limit, async (c) => {
    const res = await handle(c, true).catch((err) => {
      if (err instanceof AppError) return c.json(err.body(), err.status);
      throw err;
    });
    await corsFor(c, res);
    return res;
  });

  app.options("/api/auth/app/:app_name/validate", async (c) => {
    const res = c.body(null, 204);
    await corsFor(c, res);
    res.headers.set("Access-Control-Allow-Methods", "POST");
    res.headers.set("Access-Control-Allow-Headers", "Content-Type");
    res.headers.set("Access-Control-Max-Age", "600");
    return res;
  });

  /** CORS for the dry run: only the app's allowed frame ancestors. */
  async function corsFor(c: Context<AppEnv>, res: Response): Promise<void> {
    const origin = c.req.header("Origin");
    if (!origin) return;
    const row = await cachedApp(deps, c.req.param("app_name") ?? "");
    if (row && originAllowed(origin, row.frameAncestors)) {
      res.headers.set("Access-Control-Allow-Origin", origin);
      res.headers.set("Vary", "Origin");
    }
  }

  for (const path of ["/api/auth/app/:app_name", "/api/auth/app/:app_name/validate"]) {
    app.all(path, (c) => {
      const url = new URL(c.req.url);
      return c.text(`Cannot ${c.req.method} ${url.pathname}`, 405, {
        Allow: path.endsWith("validate") ? "POST, OPTIONS" : "POST",
      });
    });
  }
  return app;
}
