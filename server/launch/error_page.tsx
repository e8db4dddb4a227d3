/** HTML the launch endpoint answers browsers with: the error page that reaches the host app. */
import { raw } from "hono/html";
import type { AppError } from "../http/errors.ts";
import { MESSAGE_TYPES } from "./contract.ts";

/**
 * The error page: shows the message and posts `{type: MESSAGE_TYPES.error, status, message,
 * errors}` to window.parent or window.opener, only to the app's exact allowed origins. Its inline
 * style and script carry the request's CSP nonce.
 */
export function errorPage(err: AppError, frameAncestors: string[], nonce: string): string {
  const detail = {
    type: MESSAGE_TYPES.error,
    status: err.status,
    message: err.message,
    errors: err.errors ?? [],
  };
  const targets = frameAncestors.filter((o) => !o.includes("*"));
  const script = `(function(){var d=${JSON.stringify(detail).replace(/</g, "\\u003c")};` +
    `var t=${JSON.stringify(targets).replace(/</g, "\\u003c")};` +
    "var w=window.parent!==window?window.parent:window.opener;" +
    "if(w){t.forEach(function(o){try{w.postMessage(d,o)}catch(e){}})}})();";
  const page = (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>Launch failed</title>
        <style nonce={nonce}>
          {"body{font-family:system-ui,sans-serif;margin:2rem;color:#1f2933}" +
            "h1{font-size:1.25rem}li code{background:#f1f5f9;padding:0 .25rem}"}
        </style>
      </head>
      <body>
        <main>
          <h1>The portal could not be opened</h1>
          <p role="alert">{err.message}</p>
          {err.errors?.length
            ? (
              <ul>
                {err.errors.map((e) => (
                  <li>
                    <code>{e.path}</code>: {e.message}
                  </li>
                ))}
              </ul>
            )
            : null}
          <p>Status {err.status}. Please contact the administrator of your application.</p>
        </main>
        <script nonce={nonce}>{raw(script)}</script>
      </body>
    </html>
  );
  return "<!doctype html>" + page.toString();
}
