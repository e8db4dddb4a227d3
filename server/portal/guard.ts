/**
 * The portal's guard: access fails closed (server/http/access.ts). Mounted at `{prefix}/*` before
 * every portal route, it refuses a request without a valid login before any handler runs, unless
 * server/http/public_routes.ts lists its route.
 */
import type { MiddlewareHandler } from "hono";
import type { Deps } from "../deps.ts";
import type { AppEnv } from "../http/env.ts";
import { hasPortalCookie } from "../auth/cookies.ts";
import { pageToComeBackTo, refuseSignedOut, type SignInPlace } from "../http/access.ts";
import { publicMatcher, publicRoutes } from "../http/public_routes.ts";
import { COOKIES_BLOCKED_CSP, cookiesBlockedPage } from "../launch/error_page.tsx";
import { cspNonce } from "../http/page_policy.ts";
import { currentAgent } from "./auth.ts";
import { launchParam } from "./view.ts";

/** The session id of a path under `{prefix}/sessions/<id>`, or null. */
function sessionIdOfPath(prefix: string, path: string): number | null {
  const match = path.slice(prefix.length).match(/^\/sessions\/([1-9][0-9]{0,14})(?:\/|$)/);
  return match && path.startsWith(prefix) ? Number(match[1]) : null;
}

/**
 * The portal's guard, mounted at `{prefix}/*` before every portal route. A route on the public
 * list passes; any other request needs the agent of a valid login cookie, which it stores as
 * `agent` for the handlers. Without one: a session page loaded in a frame (`Sec-Fetch-Dest:
 * iframe`) with a launch id and no login cookie at all means the browser refused the cookie the
 * launch set (third-party cookies blocked in a frame), answered with a page that tells the agent
 * and the host page (`cookies_blocked`, 401). That page reads nothing and names no origin, so it
 * answers a fresh launch and any other alike (nothing to probe). Anything else gets sign-in (a
 * page) or 401 JSON; a top-level visit without a login always gets sign-in.
 */
export function portalAccess(deps: Deps): MiddlewareHandler<AppEnv> {
  const prefix = deps.config.portalPrefix;
  const isPublic = publicMatcher(publicRoutes(prefix));
  const place: SignInPlace = {
    prefix,
    login: `${prefix}/login`,
    fallback: `${prefix}/sessions`,
    message: "Sign in to the portal first",
  };
  return async (c, next) => {
    if (isPublic(c.req.method, c.req.path)) return await next();
    const agent = await currentAgent(deps, c);
    if (agent) {
      c.set("agent", agent);
      return await next();
    }
    const sessionId = sessionIdOfPath(prefix, c.req.path);
    const launchId = launchParam(c.req.query("launch"));
    if (
      c.req.method === "GET" && sessionId && launchId && !hasPortalCookie(c) &&
      c.req.header("Sec-Fetch-Dest") === "iframe"
    ) {
      c.header("Cache-Control", "no-store");
      c.header("Content-Security-Policy", COOKIES_BLOCKED_CSP);
      return c.html(
        cookiesBlockedPage(cspNonce(c), { requestId: c.get("requestId"), launchId }),
        401,
      );
    }
    // A refused post comes back to its session's screen after signing in.
    const back = sessionId ? `${prefix}/sessions/${sessionId}` : place.fallback;
    return refuseSignedOut(c, place, pageToComeBackTo(c, back));
  };
}
