/**
 * What every request leaves behind, from one middleware that runs around all the others: its
 * JSON log line (with the launch it made and its error code, when there are any), its server
 * span named by route, and its metrics: requests by route and status, and for the routes that
 * are product events (a launch, a token request, a password sign-in) their outcome.
 */
import type { Context, MiddlewareHandler } from "hono";
import { HTTPException } from "hono/http-exception";
import { routePath } from "hono/route";
import type { Config } from "../config.ts";
import type { AppEnv } from "../http/env.ts";
import { AppError } from "../http/errors.ts";
import { redactPath } from "../http/redact.ts";
import { LAUNCH_ROUTE } from "../launch/contract.ts";
import { log, logs } from "../log.ts";
import {
  httpDuration,
  httpRequests,
  launchDuration,
  launches,
  signInFailures,
  tokens,
} from "./instruments.ts";
import { nameServerSpan } from "./tracing.ts";

/** The route label of a request no route matched (never its path: that is unbounded). */
export const UNMATCHED = "(unmatched)";

/** The methods a label, a span name or a log line names as sent (RFC 9110's, and PATCH). */
const KNOWN_METHODS = new Set([
  "GET",
  "HEAD",
  "POST",
  "PUT",
  "PATCH",
  "DELETE",
  "OPTIONS",
  "CONNECT",
  "TRACE",
]);

/**
 * The method as metrics, spans and logs name it: a known one as sent, any other `_OTHER` (as
 * OpenTelemetry's HTTP conventions name it). HTTP allows any token as a method and the runtime
 * passes it on, so a label per method sent would let any client grow the metrics without bound.
 */
export function methodLabel(method: string): string {
  return KNOWN_METHODS.has(method) ? method : "_OTHER";
}

/** How much of an unknown method the log line keeps (`methodOriginal`). */
const LOGGED_METHOD_CHARS = 32;

/**
 * The error code a request ended with: a refusal the route answered itself (`errorCode`), else
 * the code the error handler answered with (server/http/errors.ts), `internal_error` for an
 * unexpected error; undefined when nothing went wrong.
 */
export function errorCodeOf(c: Context<AppEnv>): string | undefined {
  const own = c.get("errorCode");
  if (own) return own;
  const err = c.error;
  if (!err) return undefined;
  if (err instanceof AppError) return err.code;
  if (err instanceof HTTPException) {
    return err.status === 415 ? "unsupported_media_type" : "bad_request";
  }
  return "internal_error";
}

/** The pattern of the route (or middleware) that answered; undefined when none matched. */
function answeringRoute(c: Context<AppEnv>, code: string | undefined): string | undefined {
  if (code === "route_not_found") return undefined;
  return routePath(c) || undefined;
}

/** The routes whose outcome is a product metric, for this configuration. */
function productRoutes(config: Pick<Config, "portalPrefix">) {
  return {
    launch: `${config.portalPrefix}${LAUNCH_ROUTE}`,
    token: "/api/v1/oauth2/token",
    signIn: new Map([[`${config.portalPrefix}/login`, "agent"], ["/admin/login", "admin"]]),
  };
}

const SIGN_IN_FAILURES: Record<number, string> = {
  401: "refused",
  403: "rejected_form",
  429: "limited",
};

/**
 * The first middleware after the request id: runs the request, then logs it, names its span and
 * counts it. Reset links' tokens never reach the log (server/http/redact.ts); query strings are
 * never logged.
 */
export function observeRequests(config: Pick<Config, "portalPrefix">): MiddlewareHandler<AppEnv> {
  const routes = productRoutes(config);
  return async (c, next) => {
    const started = performance.now();
    await next();
    const seconds = (performance.now() - started) / 1000;
    const method = methodLabel(c.req.method);
    const status = c.res.status;
    const code = errorCodeOf(c);
    const route = answeringRoute(c, code);
    const launchId = c.get("launchId");
    nameServerSpan(method, route);
    // The line's fields are built only when info records are written (LOG_LEVEL).
    if (logs("info")) {
      log.info("request", {
        method,
        ...(method === "_OTHER"
          ? { methodOriginal: c.req.method.slice(0, LOGGED_METHOD_CHARS) }
          : {}),
        path: redactPath(c.req.path),
        status,
        ms: Math.round(seconds * 10_000) / 10,
        requestId: c.get("requestId"),
        ...(launchId !== undefined ? { launchId } : {}),
        ...(code ? { code } : {}),
      });
    }
    const label = route ?? UNMATCHED;
    httpRequests.add({ method, route: label, status: String(status) });
    httpDuration.record({ method, route: label }, seconds);
    if (method !== "POST" || !route) return;
    if (route === routes.launch) {
      // The app is named only once it is known to exist (its launch was written or re-entered),
      // and by its stored name: any name can be posted, in any case, and a label per posted
      // spelling would be unbounded.
      const app = launchId !== undefined ? c.get("launchAppName") ?? "" : "";
      const outcome = code ??
        (c.get("launchReentered") ? "reentered" : launchId !== undefined ? "ok" : `http_${status}`);
      launches.add({ app, outcome });
      const result = status >= 500 ? "error" : status >= 400 ? "refused" : "ok";
      launchDuration.record({ result }, seconds);
    } else if (route === routes.token) {
      tokens.add({ result: status === 200 ? "issued" : code ?? `http_${status}` });
    } else {
      const role = routes.signIn.get(route);
      const reason = SIGN_IN_FAILURES[status];
      if (role && reason) signInFailures.add({ role, reason });
    }
  };
}
