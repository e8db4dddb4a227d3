/**
 * The two login cookies, written with Hono's `setCookie`/`deleteCookie`: the agent portal's
 * (usable inside a third-party iframe: Secure, SameSite=None, Partitioned) and the admin screens'
 * (SameSite=Lax, Path=/admin). Each is read only by its own side.
 */
import type { Context } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";

/** Name of the portal login cookie (Path = the portal prefix). */
export const PORTAL_COOKIE = "portal_login";

/** Name of the admin login cookie (Path=/admin). */
export const ADMIN_COOKIE = "admin_login";

/** How long a portal login lasts (launch or password sign-in). */
export const PORTAL_LOGIN_HOURS = 8;

/** How long an admin login lasts. */
export const ADMIN_LOGIN_HOURS = 8;

/** Sets the portal login cookie: it must work inside a cross-site iframe. */
export function setPortalCookie(c: Context, prefix: string, token: string): void {
  setCookie(c, PORTAL_COOKIE, token, {
    path: prefix,
    maxAge: PORTAL_LOGIN_HOURS * 3600,
    httpOnly: true,
    secure: true,
    sameSite: "None",
    partitioned: true,
  });
}

/** True when the request carries a portal login cookie (valid or not). */
export function hasPortalCookie(c: Context): boolean {
  return getCookie(c, PORTAL_COOKIE) !== undefined;
}

/** Ends the portal login cookie in the browser. */
export function clearPortalCookie(c: Context, prefix: string): void {
  deleteCookie(c, PORTAL_COOKIE, {
    path: prefix,
    httpOnly: true,
    secure: true,
    sameSite: "None",
    partitioned: true,
  });
}

/** Sets the admin login cookie; Secure when the service is served over https. */
export function setAdminCookie(c: Context, publicUrl: string, token: string): void {
  setCookie(c, ADMIN_COOKIE, token, {
    path: "/admin",
    maxAge: ADMIN_LOGIN_HOURS * 3600,
    httpOnly: true,
    secure: publicUrl.startsWith("https:"),
    sameSite: "Lax",
  });
}

/** Ends the admin login cookie in the browser. */
export function clearAdminCookie(c: Context, publicUrl: string): void {
  deleteCookie(c, ADMIN_COOKIE, {
    path: "/admin",
    httpOnly: true,
    secure: publicUrl.startsWith("https:"),
    sameSite: "Lax",
  });
}

/** The value of a login cookie, or undefined when absent or implausibly long. */
export function loginCookieValue(c: Context, name: string): string | undefined {
  const value = getCookie(c, name);
  return value && value.length <= 200 ? value : undefined;
}
