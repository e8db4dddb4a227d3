/** The launch endpoint (POST {portal_url} + LAUNCH_ROUTE of the contract) and its dry run. */
import { Hono } from "hono";
import { cors } from "hono/cors";
import type { Context } from "hono";
import type { LaunchApp } from "../../db/queries/launch.ts";
import { checkFreshness, type FreshnessOutcome } from "./freshness.ts";
import type { Deps } from "../deps.ts";
import type { AppEnv } from "../http/env.ts";
import { parseLaunchPayload, refuseUnstorableText } from "./payload.ts";
import type { LaunchWarning } from "./payload.ts";
import { clientAddress } from "../http/client_address.ts";
import { signingKeys } from "./signing_keys.ts";
import { diagnoseSignature } from "./signature_diagnosis.ts";
import { CONTINUE_ROUTE, LAUNCH_ROUTE, VALIDATE_ROUTE } from "./contract.ts";
import { continueLaunch } from "./continue_route.ts";
import { originAllowed } from "../http/frame_ancestors.ts";
import {
  answerFailure,
  checkOrigin,
  countFailure,
  countUnknownApp,
  findApp,
  launchRefusal,
  limitFailures,
  mapPayload,
  planFlow,
  readSignedRequest,
  recordFailure,
  reenterSession,
  runFlow,
  sealCrmToken,
  type UnknownAppCounter,
  verifyRequest,
} from "./steps.ts";

/** Launch routes, mounted at PORTAL_PREFIX. */
export function launchRoutes(deps: Deps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  // Launches for apps that do not exist (they write no row), counted per instance of these routes.
  const unknownApps: UnknownAppCounter = { launches: 0 };

  /**
   * Runs one launch or dry run as a pipeline of steps (steps.ts); turns every refusal into the
   * response the caller expects.
   */
  async function handle(c: Context<AppEnv>, dryRun: boolean): Promise<Response> {
    const gate = { entered: false, databaseUnavailable: false };
    try {
      return await gated(c, dryRun, gate);
    } finally {
      if (gate.entered) deps.launchGate.leave(gate.databaseUnavailable);
    }
  }

  /** `handle`'s launch, which notes in `gate` when it is through the gate and how it ended. */
  async function gated(
    c: Context<AppEnv>,
    dryRun: boolean,
    gate: { entered: boolean; databaseUnavailable: boolean },
  ): Promise<Response> {
    const appName = c.req.param("app_name") ?? "";
    const address = clientAddress(deps, c);
    // What the failure steps need, filled in as the launch gets that far.
    let launchApp: LaunchApp | null = null;
    let payload: Record<string, unknown> | null = null;
    let warnings: LaunchWarning[] = [];
    let replay: FreshnessOutcome["replay"] = null;
    let raw: string | undefined;
    try {
      limitFailures(deps, address);
      // Past the gate's capacity a launch waits here, before it has built anything; a wait as
      // long as a pool connection's is answered like it (503 database_unavailable).
      await deps.launchGate.enter();
      gate.entered = true;
      // Again once through the gate: the failures of the launches admitted before this one are
      // counted by now, so a burst from one address stops at the limit plus the gate's capacity
      // instead of every queued launch failing (and writing its launch-log row).
      limitFailures(deps, address);
      launchApp = await findApp(deps, appName);
      c.set("launchAppName", launchApp.appName);
      // The dry run logs no one in; cross-site callers of it are held by its CORS answer. A page
      // without an origin signs in through the continue page (continue.tsx).
      const viaContinue = !dryRun && checkOrigin(deps.config, launchApp, c.req.header("Origin"));
      raw = await readSignedRequest(c);
      const keys = await signingKeys(deps, launchApp);
      const verified = verifyRequest(raw, keys);
      if (verified.repaired) warnings = [verified.repaired];
      const mapped = mapPayload(launchApp, verified.payload);
      payload = mapped.logged;
      // parseLaunchPayload checks what it reads; a CRM's own shape, which the launch log keeps
      // beside it, is checked as signed (a refusal's record keeps it with U+FFFD: db/mod.ts).
      if (mapped.payload !== verified.payload) refuseUnstorableText(verified.payload);
      warnings = [...warnings, ...mapped.warnings];
      const crm = await sealCrmToken(deps, launchApp.id, mapped.crm, warnings);
      const parsed = parseLaunchPayload(mapped.payload);
      const freshness = checkFreshness(launchApp, parsed.freshness, verified.signature, new Date());
      replay = freshness.replay;
      const meta = {
        appId: launchApp.id,
        appName: launchApp.appName,
        clientAddress: address,
        userAgent: c.req.header("User-Agent") ?? null,
        payload,
        warnings,
        keyUsed: keys[verified.keyIndex].which,
        freshness,
        crm,
      };
      return dryRun
        ? await planFlow(c, deps, parsed, meta)
        : await runFlow(c, deps, parsed, meta, viaContinue ? launchApp : null);
    } catch (err) {
      const refusal = launchRefusal(err);
      gate.databaseUnavailable = refusal?.code === "database_unavailable";
      if (!dryRun) {
        const back = await reenterSession(c, deps, refusal, launchApp, replay);
        if (back) return back;
      }
      countFailure(deps, refusal, address);
      if (!dryRun && launchApp) {
        // Every attempt for a known app is in the launch log, an unexpected failure too (then
        // rethrown: a 500).
        const recorded = await recordFailure(deps, refusal, {
          app: launchApp,
          clientAddress: address,
          userAgent: c.req.header("User-Agent") ?? null,
          payload,
          warnings,
          // What the Inspector would say about it, kept with the refusal's field errors.
          diagnosis: raw === undefined || !refusal || refusal.code === "database_unavailable"
            ? null
            : await diagnoseSignature(deps, launchApp, raw, "organization").catch(() => null),
        });
        if (recorded !== null) c.set("launchId", recorded);
      } else if (!dryRun && refusal?.code === "app_not_found") {
        countUnknownApp(unknownApps, appName, address);
      }
      if (dryRun) throw err;
      return answerFailure(c, err, launchApp);
    }
  }

  app.post(LAUNCH_ROUTE, (c) => handle(c, false));
  app.post(CONTINUE_ROUTE, (c) => continueLaunch(c, deps));

  // The dry run may be called from the app's own pages: CORS for its allowed frame ancestors.
  const dryRunCors = cors({
    origin: async (origin, c) => {
      const row = origin ? await deps.apps.get(c.req.param("app_name") ?? "") : null;
      return row && originAllowed(origin, row.frameAncestors) ? origin : null;
    },
    allowMethods: ["POST"],
    allowHeaders: ["Content-Type"],
    maxAge: 600,
  });
  app.options(VALIDATE_ROUTE, dryRunCors);
  app.post(VALIDATE_ROUTE, dryRunCors, (c) => handle(c, true));

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
