/**
 * POST CONTINUE_ROUTE: the continue page's form (continue.tsx), whose one field `login` is the
 * launch's new login token. It goes through the launch's own failure steps (steps.ts): the
 * address's failure limit first (429 `too_many_failures`), each refusal counted as a failed
 * launch, and answered as the launch error page with no cookie: posted from another site (403
 * `cross_site_form`), a `login` that is not a live portal login made by a launch (400
 * `continue_expired`). Else it sets the portal login cookie and answers 303 to the launch's
 * session.
 */
import type { Context } from "hono";
import { launchOfLogin } from "../../db/queries/logins.ts";
import { setPortalCookie } from "../auth/cookies.ts";
import { sha256 } from "../crypto/hashing.ts";
import type { Deps } from "../deps.ts";
import { clientAddress } from "../http/client_address.ts";
import { postedFromAnotherSite } from "../http/cross_site.ts";
import type { AppEnv } from "../http/env.ts";
import { AppError } from "../http/errors.ts";
import { requestOrigin } from "../http/public_origin.ts";
import {
  answerFailure,
  countFailure,
  launchRefusal,
  limitFailures,
  sessionScreenUrl,
} from "./steps.ts";

/** A portal login token as newLoginToken makes it: 32 random bytes in Base64url. */
const LOGIN_TOKEN = /^[A-Za-z0-9_-]{43}$/;

/** The continue form's answer: 303 to the session with the login cookie, or the error page. */
export async function continueLaunch(c: Context<AppEnv>, deps: Deps): Promise<Response> {
  const config = deps.config;
  const address = clientAddress(deps, c);
  try {
    limitFailures(deps, address);
    if (postedFromAnotherSite(c, requestOrigin(config, c))) {
      throw new AppError(
        403,
        "cross_site_form",
        "This form was sent from another site: the portal signs in only from its own continue " +
          "page.",
      );
    }
    const { login } = await c.req.parseBody();
    const token = typeof login === "string" && LOGIN_TOKEN.test(login) ? login : null;
    const target = token && await launchOfLogin(deps.sql, sha256(token));
    if (!token || !target) {
      throw new AppError(
        400,
        "continue_expired",
        "This sign-in has expired or was never made: open the portal again from your application.",
      );
    }
    c.set("launchId", target.launchId);
    setPortalCookie(c, config.portalPrefix, token);
    c.header("Cache-Control", "no-store");
    return c.redirect(sessionScreenUrl(c, config, target.sessionId, target.launchId), 303);
  } catch (err) {
    countFailure(deps, launchRefusal(err), address);
    return answerFailure(c, err, null);
  }
}
