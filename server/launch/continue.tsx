/**
 * A launch posted by a page that has no origin (`Origin: null`: a page opened from a file, a
 * sandboxed frame, a cross-site redirect), for an app with frame ancestors: the origin check
 * (steps.ts checkOrigin) cannot tell such a page from a forged one, since any site can post from a
 * sandboxed frame. So the launch runs but signs no one in by itself. The browser gets the continue
 * page instead: whom the launch is for and a Continue button (off for CONTINUE_ARM_MS once the
 * page shows), a form on the portal's own origin that posts the new login's token to
 * CONTINUE_ROUTE (continue_route.ts), which sets the login cookie and opens the launch's session.
 * A forged launch (an attacker's signed request posted from a sandboxed frame of their page) then
 * stops at a page naming the attacker's agent, and the continue route refuses a post from any
 * other site.
 * docs/launch-protocol.md, "Origin check".
 */
import type { Context } from "hono";
import { raw } from "hono/html";
import type { LaunchApp } from "../../db/queries/launch.ts";
import type { Config } from "../config.ts";
import type { AppEnv } from "../http/env.ts";
import { frameAncestorsCsp } from "../http/frame_ancestors.ts";
import { cspNonce } from "../http/page_policy.ts";
import { requestOrigin } from "../http/public_origin.ts";
import { statusPage } from "../http/status_page.tsx";
import { CONTINUE_ROUTE } from "./contract.ts";

/** True when a launch of `app` posted with `origin` signs in only through the continue page. */
export function needsContinue(app: Pick<LaunchApp, "frameAncestors">, origin?: string): boolean {
  return origin === "null" && app.frameAncestors.length > 0;
}

/** What the continue page shows and carries. */
export interface ContinueTarget {
  agent: { firstName: string; lastName: string; email: string };
  appName: string;
  loginToken: string;
}

/**
 * How long the Continue button stays off once the page is visible: a page opened under the
 * pointer (a popup an attacker's page opens at the first click of a "double-click here") must not
 * take the second click.
 */
export const CONTINUE_ARM_MS = 600;

/** Turns the button off, and on again CONTINUE_ARM_MS after the page is first visible. */
const ARM_SCRIPT = "(function(){var b=document.getElementById('continue');b.disabled=true;" +
  "function arm(){if(document.visibilityState!=='visible')return;" +
  "document.removeEventListener('visibilitychange',arm);" +
  `setTimeout(function(){b.disabled=false},${CONTINUE_ARM_MS})}` +
  "document.addEventListener('visibilitychange',arm);arm()})();";

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
          <button type="submit" id="continue">Continue as {who}</button>
        </form>
        <script nonce={cspNonce(c)}>{raw(ARM_SCRIPT)}</script>
      </>
    ),
  }));
}
