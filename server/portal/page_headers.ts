/**
 * What every portal page answers with unless its route says otherwise: `Cache-Control: no-store`
 * (sessions and sign-in forms are never cached), `frame-ancestors 'self'` (a launch's pages set
 * their app's origins themselves). Their 16 KiB body limit is in server/http/body_limit.ts.
 */
import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../http/env.ts";
import { frameAncestorsCsp } from "../http/frame_ancestors.ts";

const headers: MiddlewareHandler<AppEnv> = async (c, next) => {
  await next();
  c.header("Cache-Control", "no-store");
  if (!c.res.headers.has("Content-Security-Policy")) {
    c.header("Content-Security-Policy", frameAncestorsCsp([]));
  }
};

/** The portal page middleware, in order. */
export const portalPageMiddleware: MiddlewareHandler<AppEnv>[] = [headers];
