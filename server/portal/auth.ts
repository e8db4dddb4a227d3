/**
 * Who is looking at the portal: the login cookie (set by a launch or by the password sign-in) and
 * the per-login CSRF token of the portal's forms.
 */
import type { Context } from "hono";
import type { Deps } from "../deps.ts";
import type { AppEnv } from "../http/env.ts";
import { type Login, loginOfCookie } from "../auth/logins.ts";
import { PORTAL_COOKIE } from "../auth/cookies.ts";

/** The signed-in agent and the CSRF token of its login. */
export type PortalAgent = Login;

/**
 * The agent of the request's login cookie, or null. Looked up once per request: the reach check
 * and the page's handler share the answer instead of reading the login twice.
 */
export function currentAgent(deps: Deps, c: Context<AppEnv>): Promise<PortalAgent | null> {
  let agent = c.get("portalAgent");
  if (!agent) {
    agent = loginOfCookie(deps, c, PORTAL_COOKIE, "csrf");
    c.set("portalAgent", agent);
  }
  return agent;
}

/** A local path to return to after signing in, or the fallback. */
export function safeNext(prefix: string, next: unknown, fallback: string): string {
  if (typeof next !== "string") return fallback;
  const ok = next.startsWith(`${prefix}/`) && !next.startsWith("//") && !next.includes("\\") &&
    !/[\r\n]/.test(next);
  return ok ? next : fallback;
}
