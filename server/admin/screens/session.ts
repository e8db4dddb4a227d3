/** The administrators' sign-in session: cookie, CSRF token, and who is signed in. */
import type { Context } from "hono";
import type { Deps } from "../../deps.ts";
import { type Login, loginOfCookie } from "../../auth/logins.ts";
import { ADMIN_COOKIE } from "../../auth/cookies.ts";

/** The signed-in administrator. */
export type AdminSession = Login;

/** The administrator of the request's cookie, or null (an agent's login never counts). */
export async function currentAdmin(deps: Deps, c: Context): Promise<AdminSession | null> {
  const login = await loginOfCookie(deps, c, ADMIN_COOKIE, "admin-csrf");
  return login?.role === "admin" ? login : null;
}
