/**
 * Status pages written in JSX (the entry page at `/`, the launch error pages): their body is
 * rendered here and put in the shared shell of server/http/status_html.ts, with the design
 * system's stylesheet at its versioned address.
 */
import type { Child } from "hono/jsx";
import { assetPath } from "../assets/static_files.ts";
import { type QuotedIds, statusHtml } from "./status_html.ts";

export type { QuotedIds } from "./status_html.ts";

/** A whole status page: heading, body, optional ids. */
export function statusPage(p: {
  title: string;
  children: Child;
  ids?: QuotedIds;
  code?: string;
}): string {
  return statusHtml({
    title: p.title,
    body: (<>{p.children}</>).toString(),
    ids: p.ids,
    code: p.code,
    stylesheet: assetPath("base.css"),
    icon: assetPath("favicon.svg"),
  });
}

/** The entry page at `/`: what the service is, and where to go. */
export function landingPage(portalPrefix: string): string {
  return statusPage({
    title: "Portal Launcher",
    children: (
      <>
        <p>
          This service opens the agent portal from other web applications (a CRM, a CTI tool) with
          one signed form post, and keeps the sessions, customers and guided paths those launches
          bring.
        </p>
        <ul class="links">
          <li>
            <a href={`${portalPrefix}/login`}>Agent portal sign-in</a>
          </li>
          <li>
            <a href="/admin">Administration</a>
          </li>
          <li>
            <a href="/api/v1/docs">API reference</a>
          </li>
          <li>
            <a href="/healthz">Health</a> (liveness) and <a href="/readyz">readiness</a>
          </li>
        </ul>
      </>
    ),
  });
}
