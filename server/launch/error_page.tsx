/**
 * HTML pages that reach the host app through postMessage (server/launch/host_messages.ts): the
 * launch error page, and the page a session answers when the browser refused the launch's login
 * cookie. Each posts one `MESSAGE_TYPES.error` message to window.parent or window.opener, only
 * to the app's exact allowed origins; its inline script carries the request's CSP nonce; its style is base.css.
 */
import { raw } from "hono/html";
import type { AppError } from "../http/errors.ts";
import { type QuotedIds, statusPage } from "../http/status_page.tsx";
import {
  COOKIES_BLOCKED,
  type ErrorMessage,
  hostMessage,
  messageTargets,
} from "./host_messages.ts";

function messagePage(p: {
  title: string;
  message: ErrorMessage;
  advice: string;
  /** The likeliest cause (the `hint` of an `invalid_signature`), for whoever reads the page. */
  hint?: string;
  /** The origins the message is posted to (each window.postMessage target). */
  targets: string[];
  nonce: string;
  ids: QuotedIds;
}): string {
  const targets = p.targets;
  const json = (v: unknown) => JSON.stringify(v).replace(/</g, "\\u003c");
  const script = `(function(){var d=${json(p.message)};var t=${json(targets)};` +
    "var w=window.parent!==window?window.parent:window.opener;" +
    "if(w){t.forEach(function(o){try{w.postMessage(d,o)}catch(e){}})}})();";
  const { message, errors, status, code } = p.message;
  return statusPage({
    title: p.title,
    code: code ?? undefined,
    ids: p.ids,
    children: (
      <>
        <p class="alert" role="alert">{message}</p>
        {errors.length
          ? (
            <ul>
              {errors.map((e) => (
                <li>
                  <code>{e.path}</code>: {e.message}
                </li>
              ))}
            </ul>
          )
          : null}
        {p.hint ? <p data-testid="hint">{p.hint}</p> : null}
        <p>Status {String(status)}. {p.advice}</p>
        <script nonce={p.nonce}>{raw(script)}</script>
      </>
    ),
  });
}

/** The launch error page: the refusal's message and field errors, for the agent and the host. */
export function errorPage(
  err: AppError,
  frameAncestors: string[],
  nonce: string,
  ids: QuotedIds = {},
): string {
  return messagePage({
    title: "The portal could not be opened",
    message: hostMessage.error({
      status: err.status,
      code: err.code,
      message: err.message,
      errors: (err.errors ?? []).map(({ path, message }) => ({ path, message })),
    }),
    advice: err.code === "database_unavailable"
      ? "The portal is briefly unavailable: try again in a few seconds."
      : "Please contact the administrator of your application.",
    hint: (err.extra?.hint as { message?: string } | undefined)?.message,
    targets: messageTargets(frameAncestors),
    nonce,
    ids,
  });
}

/**
 * The page of a session requested without the login cookie its launch had just set: the browser
 * refuses the portal's cookies inside the host page. The element answers the message with an
 * "Open in a new tab" button; the page itself tells the agent the same.
 */
export function cookiesBlockedPage(nonce: string, ids: QuotedIds = {}): string {
  return messagePage({
    title: "The portal cannot open inside this page",
    message: hostMessage.error({
      status: 401,
      code: COOKIES_BLOCKED,
      message: "Your browser blocked the portal's cookie inside this page, so the portal cannot " +
        "sign you in here.",
      errors: [],
    }),
    advice: "Open the portal in a new tab (the launcher offers a button), or allow this site's " +
      "cookies in your browser's settings.",
    // Posted to whichever page frames it: the message carries nothing but its code, and the page
    // names no app's origin (it is the same for every launch).
    targets: ["*"],
    nonce,
    ids,
  });
}

/**
 * The cookies-blocked page's CSP: any page may frame it (it holds only the notice above and no
 * action), so that it reaches the host page that framed the launch without naming its origin.
 */
export const COOKIES_BLOCKED_CSP = "frame-ancestors *";
