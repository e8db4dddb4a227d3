/**
 * Who is looking at the portal: the login cookie (set by a launch or by the password sign-in) and
 * the per-login CSRF token of the portal's forms. The guard that refuses a portal request without
 * a login is guard.ts.
 */
import type { Context } from "hono";
import type { Deps } from "../deps.ts";
import type { AppEnv } from "../http/env.ts";
import { type Login, loginOfCookie } from "../auth/logins.ts";
import { PORTAL_COOKIE } from "../auth/cookies.ts";

/** The signed-in agent and the CSRF token of its login. */
export type PortalAgent = Login;

/** The env of the portal's signed-in routes: the guard has set `agent`. */
export interface PortalEnv extends AppEnv {
  Variables: AppEnv["Variables"] & { agent: PortalAgent };
}

/** The agent of the request's login cookie, or null. */
export function currentAgent(deps: Deps, c: Context<AppEnv>): Promise<PortalAgent | null> {
  return loginOfCookie(deps, c, PORTAL_COOKIE, "csrf");
}
