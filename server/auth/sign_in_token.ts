/**
 * The pre-session CSRF token of the sign-in forms (login CSRF): showing a sign-in form sets a
 * random token in a cookie and in the form; a posted sign-in is taken only when both match. A
 * forged form on another site cannot read or set the cookie, so it cannot carry the token. The
 * cookie has the attributes of the login it leads to (the portal's works inside a cross-site
 * iframe, the admin's is SameSite=Lax) and lives one hour. Checked with the browser's own
 * statement of origin (server/http/cross_site.ts).
 */
import type { Context } from "hono";
import { getCookie, setCookie } from "hono/cookie";
import { encodeBase64Url } from "../crypto/base64.ts";
import { timingSafeEqual } from "../crypto/hashing.ts";
import { randomBytes } from "../crypto/random_token.ts";

/** The form field and cookie name of the token. */
export const SIGN_IN_TOKEN = "signin_csrf";

/** Which sign-in: the portal's (cookie on the prefix) or the admin's (on /admin). */
export interface SignInSide {
  path: string;
  crossSiteFrame: boolean;
  secure: boolean;
}

/** A new token for a form about to be shown; sets its cookie. */
export function issueSignInToken(c: Context, side: SignInSide): string {
  const token = encodeBase64Url(randomBytes(24));
  setCookie(c, SIGN_IN_TOKEN, token, {
    path: side.path,
    maxAge: 3600,
    httpOnly: true,
    ...(side.crossSiteFrame
      ? { secure: true, sameSite: "None", partitioned: true }
      : { secure: side.secure, sameSite: "Lax" }),
  });
  return token;
}

/** True when the posted form carries the token of its cookie. */
export function signInTokenMatches(c: Context, posted: unknown): boolean {
  const cookie = getCookie(c, SIGN_IN_TOKEN);
  return typeof posted === "string" && !!cookie && cookie.length <= 64 &&
    timingSafeEqual(posted, cookie);
}
