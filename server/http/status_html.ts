/**
 * The shell of the service's small standalone pages (entry page, 404, 5xx, launch refusals) as
 * plain strings: this module imports nothing, so that server/http/errors.ts, which the browser
 * bundles of the signer import, stays free of JSX and of the static files. The pages are styled
 * by base.css (the design system) and quote the request id (and the launch id when there is one).
 */

/** The ids a person quotes to an administrator. */
export interface QuotedIds {
  requestId?: string | null;
  launchId?: number | string | null;
}

/** Escapes text for HTML. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
}

/** The request (and launch) id as a key-value grid. */
export function idsHtml(ids: QuotedIds): string {
  const row = (label: string, value: string) =>
    `<dt>${label}</dt><dd><code>${escapeHtml(value)}</code></dd>`;
  return '<dl class="kv" data-testid="quoted-ids">' +
    row("Request id", ids.requestId ?? "unknown") +
    (ids.launchId != null ? row("Launch id", String(ids.launchId)) : "") + "</dl>";
}

/** A whole status page; `body` is HTML (escape any text in it). */
export function statusHtml(p: {
  title: string;
  body: string;
  ids?: QuotedIds;
  /** A machine code, on <main data-code> (tests and scripts read it). */
  code?: string;
  /** The design system's stylesheet (a versioned address when the caller has one). */
  stylesheet?: string;
  icon?: string;
}): string {
  const title = escapeHtml(p.title);
  return "<!doctype html>" +
    '<html lang="en"><head><meta charset="utf-8">' +
    '<meta name="viewport" content="width=device-width, initial-scale=1">' +
    `<title>${title} · Portal Launcher</title>` +
    `<link rel="icon" href="${escapeHtml(p.icon ?? "/assets/favicon.svg")}" type="image/svg+xml">` +
    `<link rel="stylesheet" href="${escapeHtml(p.stylesheet ?? "/assets/base.css")}">` +
    '</head><body class="status-page">' +
    `<main${p.code ? ` data-code="${escapeHtml(p.code)}"` : ""}>` +
    '<p class="brand">Portal Launcher</p><section class="card">' +
    `<h1>${title}</h1>${p.body}${p.ids ? idsHtml(p.ids) : ""}` +
    "</section></main></body></html>";
}

/** The page a browser gets for a 500: what happened, what to do, and the request id to quote. */
export function serverErrorHtml(requestId: string | null): string {
  return statusHtml({
    title: "Something went wrong",
    code: "internal_error",
    ids: { requestId },
    body: "<p>The service could not answer this request. Try again in a moment; if it keeps " +
      "happening, give your administrator the request id below.</p>",
  });
}

/** The page a browser gets while the database is unavailable: wait a moment, then retry. */
export function unavailableHtml(requestId: string | null): string {
  return statusHtml({
    title: "Temporarily unavailable",
    code: "database_unavailable",
    ids: { requestId },
    body: "<p>The service cannot reach its database just now. Wait a few seconds, then try " +
      "again (reload the page, or go back and send the form again). If it keeps happening, " +
      "give your administrator the request id below.</p>",
  });
}

/** The 404 page a browser gets for an address with no page. */
export function notFoundHtml(path: string, requestId: string | null): string {
  return statusHtml({
    title: "Page not found",
    code: "route_not_found",
    ids: { requestId },
    body: `<p>There is no page at <code>${escapeHtml(path)}</code>.</p>` +
      '<p>Check the address, or start from the <a href="/">service\'s home page</a>. If a ' +
      "link brought you here, tell its owner and quote the request id below.</p>",
  });
}
