/** The administrators' sign-in session: cookie, CSRF token, and who is signed in. */
import type { Context } from "hono";
import type { Deps } from "../../deps.ts";
import { type Login, loginOfCookie } from "../../logins.ts";

/** Name of the admin session cookie (Path=/admin). */
export const ADMIN_COOKIE = "admin_login";

/** How long an admin session lasts. */
export const ADMIN_SESSION_HOURS = 8;

/** The signed-in administrator. */
export type AdminSession = Login;

/** The `Set-Cookie` value: HttpOnly, SameSite=Lax, Secure when the service is served over https. */
export function adminCookie(deps: Deps, token: string, maxAgeSeconds: number): string {
  const secure = deps.config.publicUrl.startsWith("https:") ? "; Secure" : "";
  return `${ADMIN_COOKIE}=${token}; Path=/admin; Max-Age=${maxAgeSeconds}; HttpOnly; ` +
    `SameSite=Lax${secure}`;
}

/** The administrator of the request's cookie, or null (an agent's login never counts). */
export async function currentAdmin(deps: Deps, c: Context): Promise<AdminSession | null> {
  const login = await loginOfCookie(deps, c, ADMIN_COOKIE, "admin-csrf");
  return login?.role === "admin" ? login : null;
}
