/**
 * The portal pages' shell and shared pieces: the page document (its style is the static
 * portal.css), the translator and page-context types, the CSRF fields and dates.
 */
import type { Child } from "hono/jsx";
import type { ScreenSettings } from "../../db/queries/portal.ts";
import type { SessionRow } from "../../db/queries/sessions.ts";
import { assetPath } from "../assets/static_files.ts";
import type { PathsPanel } from "./guided_paths.ts";
import type { PortalAgent } from "./auth.ts";
import type { StringKey } from "./i18n.ts";
import type { ScreenView } from "./view.ts";
import { BRIDGE_META, type BridgeSettings } from "./bridge_settings.ts";

/** A translator bound to the page's language. */
export type T = (key: StringKey, vars?: Record<string, string>) => string;

/** What every portal page knows. */
export interface PageContext {
  t: T;
  language: string;
  prefix: string;
  agent: PortalAgent;
  view: ScreenView;
  /** This page's own path and query: where the language menu comes back to. */
  here: string;
}

/** What the session screen shows. */
export interface ScreenData extends PageContext {
  session: SessionRow;
  settings: ScreenSettings;
  panel: PathsPanel;
  transferTargets: { id: number; firstName: string; lastName: string; email: string }[];
  notice: string | null;
  /** The session change the agent just made, for the host page (`?change=`). */
  change: string | null;
}

export function Page(props: {
  language: string;
  title: string;
  flavor: string;
  /** The portal prefix, for the stylesheet's URL. */
  prefix?: string;
  /** The login's CSRF token, for scripts that post the portal's forms. */
  csrf?: string;
  /** Settings of the host message bridge (pages of a session); none: no bridge. */
  bridge?: BridgeSettings;
  /** More of <head>: a page's own styles and scripts. */
  head?: Child;
  children: Child;
}): string {
  const page = (
    <html lang={props.language}>
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{props.title}</title>
        {props.csrf ? <meta name="csrf-token" content={props.csrf} /> : null}
        <link rel="icon" href={assetPath("favicon.svg", props.prefix ?? "")} type="image/svg+xml" />
        <link rel="stylesheet" href={assetPath("base.css", props.prefix ?? "")} />
        <link rel="stylesheet" href={assetPath("portal.css", props.prefix ?? "")} />
        {props.bridge
          ? (
            <>
              <meta name={BRIDGE_META} content={JSON.stringify(props.bridge)} />
              <script type="module" src={`${props.prefix ?? ""}/widget/portal-bridge.js`}></script>
            </>
          )
          : null}
        {props.head ?? null}
      </head>
      <body class={props.flavor} data-flavor={props.flavor}>{props.children}</body>
    </html>
  );
  return "<!doctype html>" + page.toString();
}

export function Csrf(props: { ctx: PageContext }) {
  return (
    <>
      <input type="hidden" name="csrf" value={props.ctx.agent.csrf} />
      {props.ctx.view.launchId
        ? <input type="hidden" name="launch" value={String(props.ctx.view.launchId)} />
        : null}
    </>
  );
}

/** A date in the viewer's language, with the exact time (seconds, zone) on hover. */
export function When(props: { date: Date | string; language: string }) {
  const d = typeof props.date === "string" ? new Date(props.date) : props.date;
  const exact = new Intl.DateTimeFormat(props.language, { dateStyle: "full", timeStyle: "long" })
    .format(d);
  return <time datetime={d.toISOString()} title={exact}>{when(d, props.language)}</time>;
}

export function when(date: Date | string, language: string): string {
  const d = typeof date === "string" ? new Date(date) : date;
  return new Intl.DateTimeFormat(language, { dateStyle: "medium", timeStyle: "short" }).format(d);
}
