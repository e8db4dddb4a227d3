/**
 * Who is looking at the portal: the login cookie (set by a launch or by the password login), the
 * per-login CSRF token of the portal's forms, and the failed-login limiter.
 */
import type { Context } from "hono";
import { getCookie } from "hono/cookie";
import { findPortalLogin, type PortalLoginRow } from "../../db/queries/launch.ts";
import { sha256, timingSafeEqual } from "../crypto/hashing.ts";
import type { Deps } from "../deps.ts";
import type { AppEnv } from "../env.ts";

/** Name of the portal login cookie. */
export const LOGIN_COOKIE = "portal_login";

/** The signed-in agent and the CSRF token of its login. */
export interface PortalAgent extends PortalLoginRow {
  csrf: string;
}

/** The `Set-Cookie` value of a portal login: works inside a third-party iframe (Partitioned). */
export function loginCookie(prefix: string, token: string, maxAgeSeconds: number): string {
  return `${LOGIN_COOKIE}=${token}; Path=${prefix}; Max-Age=${maxAgeSeconds}; HttpOnly; ` +
    "Secure; SameSite=None; Partitioned";
}

/** The CSRF token of a login: derived from the secret cookie value, so no page can guess it. */
async function csrfOf(loginToken: string): Promise<string> {
  return (await sha256(`csrf:${loginToken}`)).slice(0, 32);
}

/** The agent of the request's login cookie, or null. */
export async function currentAgent(deps: Deps, c: Context<AppEnv>): Promise<PortalAgent | null> {
  const token = getCookie(c, LOGIN_COOKIE);
  if (!token || token.length > 200) return null;
  const row = await findPortalLogin(deps.sql, await sha256(token));
  return row ? { ...row, csrf: await csrfOf(token) } : null;
}

/** True when a posted form carries the CSRF token of the agent's login. */
export function csrfMatches(agent: PortalAgent, sent: unknown): boolean {
  return typeof sent === "string" && timingSafeEqual(sent, agent.csrf);
}

/** A local path to return to after signing in, or the fallback. */
export function safeNext(prefix: string, next: unknown, fallback: string): string {
  if (typeof next !== "string") return fallback;
  const ok = next.startsWith(`${prefix}/`) && !next.startsWith("//") && !next.includes("\\") &&
    !/[\r\n]/.test(next);
  return ok ? next : fallback;
}
