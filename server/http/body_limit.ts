/**
 * Request body limits: one table for the whole service, applied by one middleware before any
 * route, guard or parser runs, so no route can forget its limit (the limit fails closed: a path
 * the table does not name gets the default). Over the limit, the answer is always 413
 * `{"code": "body_too_large", "message": "Request body too large (limit N KiB)"}` — decided from
 * Content-Length when the client sends one, else while the body streams in (never read further).
 */
import type { MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import { HTTPException } from "hono/http-exception";
import { AppError } from "./errors.ts";
import { unreadableBody } from "./nul.ts";
import { LAUNCH_ROUTE } from "../launch/contract.ts";

/** The limit of every path no entry below names: the REST API, health, assets, unknown paths. */
export const DEFAULT_BODY_LIMIT_KIB = 64;

/** One entry of the table: paths starting with `prefix` accept bodies up to `kib` KiB. */
export interface BodyLimitRule {
  prefix: string;
  kib: number;
}

/**
 * The table, longest prefix first. `portalPrefix` is PORTAL_PREFIX (never empty; the launch and
 * the portal pages live under it). docs/api.md and docs/admin.md state the same figures.
 */
export function bodyLimitRules(portalPrefix: string): BodyLimitRule[] {
  return [
    // OAuth 2.0 forms hold a few short parameters.
    { prefix: "/api/v1/oauth2/", kib: 16 },
    // Administrators send guided paths, field settings and custom field lists.
    { prefix: "/api/v1/admin/", kib: 256 },
    { prefix: "/admin/", kib: 256 },
    // A signed launch (spec: the signed_request of one form post) and its dry run (/validate).
    { prefix: `${portalPrefix}${LAUNCH_ROUTE.replace(/:app_name$/, "")}`, kib: 64 },
    // Portal pages post short forms (sign-in, password reset, session status, transfer).
    { prefix: `${portalPrefix}/`, kib: 16 },
  ].sort((a, b) => b.prefix.length - a.prefix.length);
}

/** The limit, in KiB, of a request path under `rules`. */
export function bodyLimitFor(rules: readonly BodyLimitRule[], path: string): number {
  return rules.find((r) => path.startsWith(r.prefix))?.kib ?? DEFAULT_BODY_LIMIT_KIB;
}

/** Refuses bodies over `kib` KiB with the service's 413 error. */
function limitBody(kib: number): MiddlewareHandler {
  return bodyLimit({
    maxSize: kib * 1024,
    onError: () => {
      throw new AppError(413, "body_too_large", `Request body too large (limit ${kib} KiB)`);
    },
  });
}

/**
 * The one body-limit middleware: each request gets its path's limit from `rules`. A body sent
 * without a length is read whole here to count it; one that breaks off meanwhile is the client's
 * fault, answered as the input rules answer it (nul.ts unreadableBody, RFC 6749's shape under
 * `oauthPrefix`), not a 500.
 */
export function limitBodies(
  rules: readonly BodyLimitRule[],
  oauthPrefix: string,
): MiddlewareHandler {
  const byKib = new Map<number, MiddlewareHandler>();
  for (const kib of [DEFAULT_BODY_LIMIT_KIB, ...rules.map((r) => r.kib)]) {
    if (!byKib.has(kib)) byKib.set(kib, limitBody(kib));
  }
  return async (c, next) => {
    if (!c.req.raw.body) return next();
    let passed = false;
    try {
      return await byKib.get(bodyLimitFor(rules, c.req.path))!(c, () => {
        passed = true;
        return next();
      });
    } catch (err) {
      if (passed || err instanceof AppError || err instanceof HTTPException) throw err;
      throw unreadableBody(c.req.path, oauthPrefix);
    }
  };
}
