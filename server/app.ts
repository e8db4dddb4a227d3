/** Builds the Hono application from its dependencies. */
import { Hono } from "hono";
import { requestId } from "hono/request-id";
import { secureHeaders } from "hono/secure-headers";
import { probeDatabase } from "../db/mod.ts";
import type { Deps } from "./deps.ts";
import type { AppEnv } from "./http/env.ts";
import { handleError, notFound } from "./http/errors.ts";
import { landingPage } from "./http/status_page.tsx";
import { completePagePolicy } from "./http/page_policy.ts";
import { observeRequests } from "./observability/requests.ts";
import { redactSpanUrls } from "./observability/tracing.ts";
import { bodyLimitRules, limitBodies } from "./http/body_limit.ts";
import { refuseNul } from "./http/nul.ts";
import { refuseBadHost } from "./http/host.ts";
import { apiV1 } from "./api/v1.ts";
import { oauthMetadata } from "./oauth/routes.ts";
import { launchRoutes } from "./launch/routes.ts";
import { portalRoutes } from "./portal/routes.tsx";
import { remoteRoutes } from "./remote/routes.tsx";
import { portalAccess } from "./portal/guard.ts";
import { warmPage } from "./assets/warm_page.ts";
import { WARM_UP_ROUTE } from "./launch/contract.ts";
import { backupRoute } from "./ops/backup_route.ts";
import { portalPasswordResetRoutes } from "./portal/password_reset_routes.tsx";
import { portalSignInRoutes } from "./portal/sign_in_routes.tsx";
import { faviconRoute, staticRoutes, widgetRoutes } from "./assets/routes.ts";
import { adminScreens } from "./admin/screens/routes.tsx";
import { Drain } from "./ops/drain.ts";
import { cachedRouter } from "./http/route_cache.ts";

/**
 * The headers every response carries, through hono/secure-headers. Three of its defaults are off
 * on purpose: X-Frame-Options (portal pages are framed by host apps; each page family sets its
 * CSP frame-ancestors instead), Cross-Origin-Opener-Policy (a launch in a new tab reports errors
 * to window.opener) and Cross-Origin-Resource-Policy (host pages on other origins load the widget).
 */
function securityHeaders(publicUrl: string) {
  return secureHeaders({
    xFrameOptions: false,
    crossOriginOpenerPolicy: false,
    crossOriginResourcePolicy: false,
    referrerPolicy: "same-origin",
    strictTransportSecurity: publicUrl.startsWith("https:")
      ? "max-age=31536000; includeSubDomains"
      : false,
  });
}

/** Where the OAuth 2.0 endpoints are: their errors take RFC 6749's shape. */
const OAUTH_PREFIX = "/api/v1/oauth2/";

/**
 * The whole service as one Hono app (routes, middleware, error handling); `drain` is the
 * service's shutdown state (server/ops/drain.ts).
 */
export function buildApp(deps: Deps, drain: Drain = new Drain()): Hono<AppEnv> {
  // Every route of the sub-apps below is added to this app's router (Hono's route()); it matches
  // each method and path once (server/http/route_cache.ts).
  const app = new Hono<AppEnv>({ router: cachedRouter() });
  // Shutdown (server/ops/drain.ts): requests in flight are counted; while draining, every
  // response says Connection: close.
  app.use("*", drain.middleware());

  // X-Request-Id: the caller's when it is 1-128 of [A-Za-z0-9_=-], else a new UUID; echoed.
  app.use("*", requestId({ limitLength: 128 }));
  // One JSON log line per request (hono/logger prints plain text), its span named by route, its
  // metrics (server/observability/requests.ts); secrets stay out of span URLs (tracing.ts).
  redactSpanUrls();
  app.use("*", observeRequests(deps.config));
  app.use("*", securityHeaders(deps.config.publicUrl));
  app.use("*", completePagePolicy());
  // The runtime builds the URL every route matches from Host: only host[:port] (http/host.ts),
  // refused after the request is logged, counted and given its headers, before anything reads it.
  app.use("*", refuseBadHost());
  // Before any guard or route reads a body: every path's body limit from one table (413), then
  // the one rule for U+0000 in any input (400 naming the field).
  app.use("*", limitBodies(bodyLimitRules(deps.config.portalPrefix), OAUTH_PREFIX));
  app.use("*", refuseNul(OAUTH_PREFIX));
  // Access fails closed: before any portal route, the portal's guard refuses every request
  // without a login unless server/http/public_routes.ts lists its route (the admin screens'
  // guard is the first middleware of /admin; the REST API answers 401 without a bearer token).
  app.use(`${deps.config.portalPrefix}/*`, portalAccess(deps));

  app.get("/", (c) => c.html(landingPage(deps.config.portalPrefix)));
  app.get("/healthz", (c) => c.json({ status: "ok", version: deps.config.version }));
  app.get("/readyz", async (c) => {
    if (drain.draining) return c.json({ status: "draining" }, 503);
    // db/mod.ts probeDatabase: its own short timeout, whatever the pool is doing.
    if (await probeDatabase(deps.sql, deps.config.databaseProbeTimeoutMs)) {
      return c.json({ status: "ok", database: "reachable" });
    }
    return c.json({ status: "unavailable", database: "unreachable" }, 503);
  });

  app.route("/.well-known/oauth-authorization-server", oauthMetadata(deps));
  app.route("/api/v1", apiV1(deps));
  if (deps.embedded) {
    app.route("/internal", backupRoute(deps.embedded.dumpDataDir, deps.embedded.secretKey));
  }
  app.route("/favicon.ico", faviconRoute());
  app.route("/assets", staticRoutes());
  app.route(`${deps.config.portalPrefix}/assets`, staticRoutes());
  // Before the portal: the portal's no-store middleware must not cover the widget.
  app.get(`${deps.config.portalPrefix}${WARM_UP_ROUTE}`, warmPage(deps.config.portalPrefix));
  app.route(`${deps.config.portalPrefix}/widget`, widgetRoutes());
  app.route(deps.config.portalPrefix, launchRoutes(deps));
  app.route(deps.config.portalPrefix, portalPasswordResetRoutes(deps));
  app.route(deps.config.portalPrefix, portalSignInRoutes(deps));
  app.route(deps.config.portalPrefix, remoteRoutes(deps));
  app.route(deps.config.portalPrefix, portalRoutes(deps));
  // {portal_url}/ (with its slash; portalRoutes answers {portal_url}): the agent's sessions.
  app.get(
    `${deps.config.portalPrefix}/`,
    (c) => c.redirect(`${deps.config.portalPrefix}/sessions`),
  );
  app.route("/admin", adminScreens(deps));

  // The request log's code and the span's missing route (server/observability/requests.ts).
  app.notFound((c) => {
    c.set("errorCode", "route_not_found");
    return notFound(c);
  });
  app.onError(handleError);
  return app;
}
