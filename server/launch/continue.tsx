/**
 * A launch posted by a page that has no origin (`Origin: null`: a page opened from a file, a
 * sandboxed frame, a cross-site redirect), for an app with frame ancestors: the origin check
 * (steps.ts checkOrigin) cannot tell such a page from a forged one, since any site can post from a
 * sandboxed frame. So the launch runs but signs no one in by itself. The browser gets the continue
 * page instead: whom the launch is for and a Continue button, a form on the portal's own origin
 * that posts the new login's token to CONTINUE_ROUTE, which sets the login cookie and opens the
 * session. A forged launch (an attacker's signed request posted from a sandboxed frame of their
 * page) then stops at a page naming the attacker's agent, and the continue route refuses a post
 * from any other site. docs/launch-protocol.md, "Origin check".
 */
import type { Context } from "hono";
import type { LaunchApp } from "../../db/queries/launch.ts";
import { findLogin } from "../../db/queries/logins.ts";
import { setPortalCookie } from "../auth/cookies.ts";
import type { Config } from "../config.ts";
import { sha256 } from "../crypto/hashing.ts";
import type { Deps } from "../deps.ts";
import { clientAddress } from "../http/client_address.ts";
import { postedFromAnotherSite } from "../http/cross_site.ts";
import type { AppEnv } from "../http/env.ts";
import { AppError } from "../http/errors.ts";
import { refuseWhenFailingTooOften } from "../http/failure_rate.ts";
import { frameAncestorsCsp } from "../http/frame_ancestors.ts";
import { requestOrigin } from "../http/public_origin.ts";
import { statusPage } from "../http/status_page.tsx";
import { CONTINUE_ROUTE } from "./contract.ts";

/** A portal login token as newLoginToken makes it: 32 random bytes in Base64url. */
const LOGIN_TOKEN = /^[A-Za-z0-9_-]{43}$/;
/** A session's or a launch's id as the continue form carries it. */
const ID = /^[1-9]\d{0,15}$/;

/** True when a launch of `app` posted with `origin` signs in only through the continue page. */
export function needsContinue(app: Pick<LaunchApp, "frameAncestors">, origin?: string): boolean {
  return origin === "null" && app.frameAncestors.length > 0;
}

/** What the continue page shows and carries. */
export interface ContinueTarget {
  agent: { firstName: string; lastName: string; email: string };
  appName: string;
  loginToken: string;
  sessionId: number;
  launchId: number;
}

/** The continue page (200): whom the launch signs in, and the form that does it. */
export function continuePage(
  c: Context<AppEnv>,
  config: Config,
  app: Pick<LaunchApp, "frameAncestors">,
  target: ContinueTarget,
): Response {
  const { agent } = target;
  const who = `${agent.firstName} ${agent.lastName}`.trim() || agent.email;
  // As the error page: framable by the app's pages only; the token is in it, so never stored.
  c.header("Content-Security-Policy", frameAncestorsCsp(app.frameAncestors));
  c.header("Cache-Control", "no-store");
  const action = `${requestOrigin(config, c)}${config.portalPrefix}${CONTINUE_ROUTE}`;
  return c.html(statusPage({
    title: "Continue to the portal",
    ids: { requestId: c.get("requestId") },
    children: (
      <>
        <p>
          A page without an origin (a file on this computer, a sandboxed frame, or a redirect from
          another site) opened the portal of <strong>{target.appName}</strong> for:
        </p>
        <p data-testid="continue-agent">
          <strong>{who}</strong> ({agent.email})
        </p>
        <p>
          Continue only if this is you and you opened it yourself: the portal cannot tell where the
          request came from.
        </p>
        <form method="post" action={action}>
          <input type="hidden" name="login" value={target.loginToken} />
          <input type="hidden" name="session" value={String(target.sessionId)} />
          <input type="hidden" name="launch" value={String(target.launchId)} />
          <button type="submit">Continue as {who}</button>
        </form>
      </>
    ),
  }));
}

/** A refused continue: its page (a browser posted the form), with the status and code. */
function refused(c: Context<AppEnv>, status: 400 | 403, code: string, message: string): Response {
  c.set("errorCode", code);
  c.header("Cache-Control", "no-store");
  return c.html(
    statusPage({
      title: "The portal could not be opened",
      code,
      ids: { requestId: c.get("requestId") },
      children: (
        <>
          <p class="alert" role="alert">{message}</p>
          <p>Status {String(status)}. Open the portal again from your application.</p>
        </>
      ),
    }),
    status,
  );
}

/**
 * POST CONTINUE_ROUTE: the continue page's form. Refused (no cookie) when posted from another site
 * (403 `cross_site_form`), or when its login is not a live portal login of that launch (400
 * `continue_expired`); else sets the portal login cookie and answers 303 to the session. A refusal
 * counts as a failed launch of the client's address: past LAUNCH_FAILURES_PER_MINUTE, 429.
 */
export async function continueLaunch(c: Context<AppEnv>, deps: Deps): Promise<Response> {
  const config = deps.config;
  const address = clientAddress(deps, c);
  // Each refusal counts as a failed launch of the address (429 past the launches' limit).
  refuseWhenFailingTooOften(deps.failures.launch, address, "launches");
  const origin = requestOrigin(config, c);
  if (postedFromAnotherSite(c, origin)) {
    deps.failures.launch.fail(address);
    return refused(
      c,
      403,
      "cross_site_form",
      "This form was sent from another site: the portal signs in only from its own continue page.",
    );
  }
  const form = await c.req.parseBody();
  const { login, session, launch } = form;
  if (
    typeof login !== "string" || !LOGIN_TOKEN.test(login) ||
    typeof session !== "string" || !ID.test(session) ||
    typeof launch !== "string" || !ID.test(launch)
  ) {
    deps.failures.launch.fail(address);
    throw new AppError(
      400,
      "invalid_request",
      "The continue form needs the fields login (the page's token), session and launch (ids): " +
        "post the form the portal's continue page shows",
    );
  }
  const row = await findLogin(deps.sql, sha256(login), "portal");
  if (!row || row.launchId !== Number(launch)) {
    deps.failures.launch.fail(address);
    return refused(
      c,
      400,
      "continue_expired",
      "This sign-in has expired or was never made: open the portal again from your application.",
    );
  }
  setPortalCookie(c, config.portalPrefix, login);
  c.header("Cache-Control", "no-store");
  return c.redirect(`${origin}${config.portalPrefix}/sessions/${session}?launch=${launch}`, 303);
}
