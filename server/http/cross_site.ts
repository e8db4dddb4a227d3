/**
 * Login CSRF: a sign-in form posted from another site would sign the victim's browser into the
 * attacker's account. Browsers say where a form came from (`Sec-Fetch-Site`, `Origin`); a
 * sign-in POST whose browser says "another site" is refused. A request carrying neither header
 * does not come from a browser (curl, scripts), where there is no victim session to forge, so it
 * passes. Hand-written beside `hono/csrf` because that middleware refuses such header-less
 * requests and answers a bare text 403, while the sign-in pages answer with their own form.
 */
import type { Context } from "hono";

/** True when a browser says the form was posted from another origin than `expectedOrigin`. */
export function postedFromAnotherSite(c: Context, expectedOrigin: string): boolean {
  const site = c.req.header("Sec-Fetch-Site");
  const origin = c.req.header("Origin");
  if (site === undefined && origin === undefined) return false;
  if (site === "same-origin") return false;
  return origin === undefined || origin !== expectedOrigin;
}
