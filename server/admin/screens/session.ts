/** The administrators' sign-in session: cookie, CSRF token, and who is signed in. */
import type { Context } from "hono";
import { getCookie } from "hono/cookie";
import { findAdminLogin } from "../../../db/queries/people_admin.ts";
import { sha256, timingSafeEqual } from "../../crypto/hashing.ts";
import type { Deps } from "../../deps.ts";

/** Name of the admin session cookie (Path=/admin). */
export const ADMIN_COOKIE = "admin_login";

/** How long an admin session lasts. */
export const ADMIN_SESSION_HOURS = 8;

/** The signed-in administrator. */
export interface AdminSession {
  userId: number;
  email: string;
  firstName: string;
  lastName: string;
  csrf: string;
  tokenHash: string;
}

/** The `Set-Cookie` value: HttpOnly, SameSite=Lax, Secure when the service is served over https. */
export function adminCookie(deps: Deps, token: string, maxAgeSeconds: number): string {
  const secure = deps.config.publicUrl?.startsWith("https:") ? "; Secure" : "";
  return `${ADMIN_COOKIE}=${token}; Path=/admin; Max-Age=${maxAgeSeconds}; HttpOnly; ` +
    `SameSite=Lax${secure}`;
}

/** The administrator of the request's cookie, or null (an agent's login never counts). */
export async function currentAdmin(deps: Deps, c: Context): Promise<AdminSession | null> {
  const token = getCookie(c, ADMIN_COOKIE);
  if (!token || token.length > 200) return null;
  const tokenHash = await sha256(token);
  const row = await findAdminLogin(deps.sql, tokenHash);
  if (!row) return null;
  return { ...row, tokenHash, csrf: (await sha256(`admin-csrf:${token}`)).slice(0, 32) };
}

/** True when a posted form carries the session's CSRF token. */
export function adminCsrfMatches(session: AdminSession, sent: unknown): boolean {
  return typeof sent === "string" && timingSafeEqual(sent, session.csrf);
}
