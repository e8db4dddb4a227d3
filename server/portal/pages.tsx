/**
 * The agent portal's HTML: three layouts (standard, embedded, seesupport) built from the same
 * panels, the path runner, the remote control view, the sessions list and the sign-in page.
 * Plain forms: everything works without JavaScript.
 */
import type { Child } from "hono/jsx";
import { raw } from "hono/html";
import type { ScreenSettings } from "../../db/queries/portal.ts";
import type { SessionRow } from "../../db/queries/sessions.ts";
import { type CatalogPath, localSteps, localTitle, type PathsPanel } from "./guided_paths.ts";
import type { PortalAgent } from "./auth.ts";
import type { StringKey } from "./i18n.ts";
import { portalUrl, type ScreenView } from "./view.ts";

/** A translator bound to the page's language. */
export type T = (key: StringKey, vars?: Record<string, string>) => string;

/** What every portal page knows. */
export interface PageContext {
  t: T;
  language: string;
  prefix: string;
  agent: PortalAgent;
  view: ScreenView;
}

/** What the session screen shows. */
export interface ScreenData extends PageContext {
  session: SessionRow;
  settings: ScreenSettings;
  panel: PathsPanel;
  /** Which part of the paths panel is open: the path list or the remote control view. */
  mode: "list" | "remote";
  transferTargets: { id: number; firstName: string; lastName: string; email: string }[];
  notice: string | null;
}

const STYLE = `
*{box-sizing:border-box}body{margin:0;font-family:system-ui,sans-serif;color:#1f2933;background:#f5f7fa}
a{color:#1d4ed8}:focus-visible{outline:3px solid #f59e0b;outline-offset:2px}
header.bar{display:flex;justify-content:space-between;align-items:center;gap:1rem;flex-wrap:wrap;
padding:.6rem 1rem;background:#102a43;color:#fff}header.bar a{color:#fff}
nav.portal ul{display:flex;gap:1rem;list-style:none;margin:0;padding:.4rem 1rem;background:#d9e2ec}
main{padding:1rem;max-width:72rem;margin:0 auto}
.grid{display:grid;grid-template-columns:repeat(auto-fit,minmax(18rem,1fr));gap:1rem}
section.card{background:#fff;border:1px solid #d9e2ec;border-radius:6px;padding:.8rem 1rem}
h1{font-size:1.3rem;margin:.2rem 0 .8rem}h2{font-size:1.05rem;margin:.2rem 0 .6rem}
h3{font-size:.95rem;margin:.6rem 0 .3rem}
dl{display:grid;grid-template-columns:max-content 1fr;gap:.2rem .8rem;margin:0}dt{color:#52606d}
dd{margin:0;overflow-wrap:anywhere}
table{border-collapse:collapse;width:100%;font-size:.9rem}td,th{border:1px solid #d9e2ec;
padding:.2rem .4rem;text-align:left}
button,.button{font:inherit;padding:.35rem .8rem;border-radius:4px;border:1px solid #1d4ed8;
background:#1d4ed8;color:#fff;cursor:pointer;text-decoration:none;display:inline-block}
button.secondary,.button.secondary{background:#fff;color:#1d4ed8}
.controls{display:flex;flex-wrap:wrap;gap:.5rem;align-items:center;margin:.5rem 0 1rem}
.controls form{margin:0}select,input{font:inherit;padding:.3rem;max-width:100%}
.switch[aria-checked=true]{background:#2f855a;border-color:#2f855a}
.switch[aria-checked=false]{background:#c53030;border-color:#c53030}
.status-closed{color:#c53030;font-weight:bold}.status-open{color:#2f855a;font-weight:bold}
ul.paths{list-style:none;padding:0;margin:0}ul.paths li{display:flex;justify-content:space-between;
gap:.5rem;align-items:center;padding:.3rem 0;border-bottom:1px solid #eef2f7}
.notice{background:#fffbea;border:1px solid #f0b429;padding:.5rem .8rem;border-radius:4px}
.error{background:#fde8e8;border:1px solid #c53030;padding:.5rem .8rem;border-radius:4px}
.embedded main{padding:.5rem;max-width:none}.embedded section.card{padding:.5rem}
.embedded h1{font-size:1.05rem}.embedded details{margin:.4rem 0}
.seesupport .hero{border:2px solid #2f855a}
`;

function Page(props: {
  language: string;
  title: string;
  flavor: string;
  /** The login's CSRF token, for scripts that post the portal's forms. */
  csrf?: string;
  children: Child;
}): string {
  const page = (
    <html lang={props.language}>
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{props.title}</title>
        {props.csrf ? <meta name="csrf-token" content={props.csrf} /> : null}
        <style>{raw(STYLE)}</style>
      </head>
      <body class={props.flavor} data-flavor={props.flavor}>{props.children}</body>
    </html>
  );
  return "<!doctype html>" + page.toString();
}

function Csrf(props: { ctx: PageContext }) {
  return (
    <>
      <input type="hidden" name="csrf" value={props.ctx.agent.csrf} />
      {props.ctx.view.launchId
        ? <input type="hidden" name="launch" value={String(props.ctx.view.launchId)} />
        : null}
    </>
  );
}

function when(date: Date | string, language: string): string {
  const d = typeof date === "string" ? new Date(date) : date;
  return new Intl.DateTimeFormat(language, { dateStyle: "medium", timeStyle: "short" }).format(d);
}

function SessionInfo(props: { d: ScreenData }) {
  const { d } = props;
  const { t, session: s } = d;
  const a = s.assignee;
  return (
    <section class="card" aria-labelledby="info-h">
      <h2 id="info-h">{t("session")} {String(s.id)}</h2>
      <dl>
        <dt>{t("status")}</dt>
        <dd class={`status-${s.status}`} data-testid="status">{t(s.status)}</dd>
        <dt>{t("assignee")}</dt>
        <dd data-testid="assignee">{a ? `${a.firstName} ${a.lastName}` : t("unassigned")}</dd>
        {d.settings.externalSessionId
          ? (
            <>
              <dt>{t("externalReference")}</dt>
              <dd data-testid="external-reference">{s.externalReference ?? ""}</dd>
            </>
          )
          : null}
        {s.referenceId
          ? (
            <>
              <dt>{t("referenceId")}</dt>
              <dd>{s.referenceId}</dd>
            </>
          )
          : null}
        {Object.entries(s.customFields).map(([name, value]) => (
          <>
            <dt>{d.settings.labels[name] ?? name}</dt>
            <dd data-field={name}>{String(value)}</dd>
          </>
        ))}
        <dt>{t("created")}</dt>
        <dd>{when(s.createdAt, d.language)}</dd>
        <dt>{t("updated")}</dt>
        <dd>{when(s.updatedAt, d.language)}</dd>
      </dl>
    </section>
  );
}

function CustomerPanel(props: { d: ScreenData }) {
  const { d } = props;
  const { t } = d;
  const c = d.session.customer;
  const rows: [string, string | null][] = [
    [t("name"), `${c.firstName} ${c.lastName}`],
    [t("email"), c.email],
    [t("phone1"), c.phone1],
    [t("phone2"), c.phone2],
    [t("otherPhone"), c.otherPhone],
  ];
  if (d.settings.externalCustomerId) rows.push([t("externalCustomerId"), c.externalId]);
  return (
    <section class="card" aria-labelledby="customer-h" data-testid="customer">
      <h2 id="customer-h">{t("customer")}</h2>
      <dl>
        {rows.map(([label, value]) => (
          <>
            <dt>{label}</dt>
            <dd>{value ?? ""}</dd>
          </>
        ))}
      </dl>
    </section>
  );
}

interface AvProduct {
  company?: string;
  name?: string;
  version?: string;
  latest?: boolean;
}

function DevicesPanel(props: { d: ScreenData }) {
  const { d } = props;
  const { t } = d;
  return (
    <section class="card" aria-labelledby="devices-h" data-testid="devices">
      <h2 id="devices-h">{t("devices")}</h2>
      {d.session.devices.length === 0 ? <p>{t("noDevices")}</p> : null}
      {d.session.devices.map((dev) => {
        const { av_prods: av, ...props } = dev.properties as Record<string, unknown> & {
          av_prods?: AvProduct[];
        };
        return (
          <div data-device={dev.kind}>
            <h3>{t(dev.kind)}{props.name ? `: ${String(props.name)}` : ""}</h3>
            <dl>
              {Object.entries(props).map(([k, v]) => (
                <>
                  <dt>{k}</dt>
                  <dd>{String(v)}</dd>
                </>
              ))}
            </dl>
            {av?.length
              ? (
                <table data-testid="av-prods">
                  <caption>{t("antivirus")}</caption>
                  <thead>
                    <tr>
                      <th scope="col">{t("company")}</th>
                      <th scope="col">{t("product")}</th>
                      <th scope="col">{t("version")}</th>
                      <th scope="col">{t("latest")}</th>
                    </tr>
                  </thead>
                  <tbody>
                    {av.map((p) => (
                      <tr>
                        <td>{p.company ?? ""}</td>
                        <td>{p.name ?? ""}</td>
                        <td>{p.version ?? ""}</td>
                        <td>{p.latest === undefined ? "" : p.latest ? t("yes") : t("no")}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              )
              : null}
          </div>
        );
      })}
    </section>
  );
}

function Controls(props: { d: ScreenData }) {
  const { d } = props;
  const { t, session: s, view, prefix } = d;
  const base = `/sessions/${s.id}`;
  const open = s.status === "open";
  const owned = s.assignee?.id === d.agent.userId;
  return (
    <div class="controls" data-testid="controls">
      {view.showSessionStatusChange
        ? (
          <form method="post" action={`${prefix}${base}/status`}>
            <Csrf ctx={d} />
            <input type="hidden" name="status" value={open ? "closed" : "open"} />
            <button
              type="submit"
              class="switch"
              role="switch"
              aria-checked={open ? "true" : "false"}
              aria-label={t("sessionOpen")}
              data-testid="status-switch"
            >
              {open ? t("closeSession") : t("reopenSession")}
            </button>
          </form>
        )
        : null}
      {view.showAssignToMeButton && !owned && open
        ? (
          <form method="post" action={`${prefix}${base}/assign`}>
            <Csrf ctx={d} />
            <button type="submit" data-testid="assign-to-me">{t("assignToMe")}</button>
          </form>
        )
        : null}
      {view.showSessionTransferButton && open && d.transferTargets.length
        ? (
          <form method="post" action={`${prefix}${base}/transfer`} data-testid="transfer">
            <Csrf ctx={d} />
            <label>
              {t("transferTo")}{" "}
              <select name="agentId" required>
                {d.transferTargets.map((a) => (
                  <option value={String(a.id)}>{a.firstName} {a.lastName} ({a.email})</option>
                ))}
              </select>
            </label>{" "}
            <button type="submit" class="secondary">{t("transferButton")}</button>
          </form>
        )
        : null}
    </div>
  );
}

function PathItem(props: { d: ScreenData; path: CatalogPath }) {
  const { d, path } = props;
  return (
    <li data-path-uid={path.uid}>
      <span>{localTitle(path, d.language)}</span>
      <a
        class="button secondary"
        href={portalUrl(d.prefix, `/sessions/${d.session.id}/paths/${path.uid}`, d.view.launchId)}
      >
        {d.t("runPath")}
      </a>
    </li>
  );
}

function RemoteView(props: { d: PageContext; requested: boolean }) {
  const { t } = props.d;
  return (
    <section class="card" aria-labelledby="remote-h" data-testid="remote-view">
      <h2 id="remote-h">{t("remoteTitle")}</h2>
      {props.requested ? <p class="notice" role="status">{t("remoteRequested")}</p> : null}
      <p>{t("remoteNote")}</p>
    </section>
  );
}

function RemoteButton(props: { ctx: PageContext; sessionId: number }) {
  return (
    <form
      method="post"
      action={`${props.ctx.prefix}/sessions/${props.sessionId}/remote`}
      data-testid="start-remote"
    >
      <Csrf ctx={props.ctx} />
      <button type="submit">{props.ctx.t("startRemote")}</button>
    </form>
  );
}

function PathsPanelView(props: { d: ScreenData }) {
  const { d } = props;
  const { t, panel, session: s } = d;
  if (d.mode === "remote") return <RemoteView d={d} requested />;
  const action = portalUrl(d.prefix, `/sessions/${s.id}`, null);
  return (
    <section class="card" aria-labelledby="paths-h" data-testid="paths-panel">
      <h2 id="paths-h">{t("guidedPaths")}</h2>
      {s.pathRuns.length
        ? (
          <>
            <h3>{t("pathsRun")}</h3>
            <ul data-testid="path-runs">
              {s.pathRuns.map((r) => <li key={r.ranAt}>{r.title} · {when(r.ranAt, d.language)}
              </li>)}
            </ul>
          </>
        )
        : null}
      {panel.recentlyUsed.length
        ? (
          <>
            <h3>{t("recentlyUsed")}</h3>
            <ul class="paths" data-testid="recently-used">
              {panel.recentlyUsed.map((p) => <PathItem key={p.uid} d={d} path={p} />)}
            </ul>
          </>
        )
        : null}
      <h3>{t("addPath")}</h3>
      <form method="get" action={action} role="search">
        {d.view.launchId
          ? <input type="hidden" name="launch" value={String(d.view.launchId)} />
          : null}
        <label>
          {t("search")}{" "}
          <input type="search" name="q" value={panel.searchText} data-testid="path-search" />
        </label>{" "}
        <button type="submit" class="secondary">{t("searchButton")}</button>
      </form>
      {panel.listing.length
        ? (
          <ul class="paths" data-testid="path-list">
            {panel.listing.map((p) => <PathItem key={p.uid} d={d} path={p} />)}
          </ul>
        )
        : <p>{t("noPaths")}</p>}
    </section>
  );
}

function Header(props: { ctx: PageContext }) {
  const { t, agent, language } = props.ctx;
  return (
    <header class="bar">
      <strong>{t("portal")}</strong>
      <span data-testid="agent-name">
        {agent.firstName} {agent.lastName} · {t("language")}:{" "}
        <span data-testid="language">{language}</span>
      </span>
    </header>
  );
}

function PortalNav(props: { ctx: PageContext }) {
  return (
    <nav class="portal" aria-label={props.ctx.t("portal")}>
      <ul>
        <li>
          <a href={`${props.ctx.prefix}/sessions`}>{props.ctx.t("mySessions")}</a>
        </li>
      </ul>
    </nav>
  );
}

function Notice(props: { text: string | null }) {
  return props.text ? <p class="notice" role="status">{props.text}</p> : null;
}

/** The session screen in the launch's flavor. */
export function sessionScreen(d: ScreenData): string {
  const { t, session: s } = d;
  const title = `${t("session")} ${s.id}`;
  if (d.view.target === "embedded") {
    return Page({
      language: d.language,
      csrf: d.agent.csrf,
      title,
      flavor: "embedded",
      children: (
        <main data-layout="embedded">
          <h1>
            {title} · <span class={`status-${s.status}`}>{t(s.status)}</span>
          </h1>
          <Notice text={d.notice} />
          <Controls d={d} />
          <PathsPanelView d={d} />
          <details>
            <summary>{t("session")}</summary>
            <SessionInfo d={d} />
          </details>
          <details>
            <summary>{t("customer")}</summary>
            <CustomerPanel d={d} />
          </details>
          <details>
            <summary>{t("devices")}</summary>
            <DevicesPanel d={d} />
          </details>
        </main>
      ),
    });
  }
  if (d.view.target === "seesupport") {
    return Page({
      language: d.language,
      csrf: d.agent.csrf,
      title,
      flavor: "seesupport",
      children: (
        <>
          <Header ctx={d} />
          <main data-layout="seesupport">
            <h1>{title}</h1>
            <Notice text={d.notice} />
            <div class="grid hero-row">
              <CustomerPanel d={d} />
              <DevicesPanel d={d} />
            </div>
            <form method="post" action={`${d.prefix}/sessions/${s.id}/visual-support`}>
              <Csrf ctx={d} />
              <p>
                <button type="submit" data-testid="start-visual-support">
                  {t("startVisualSupport")}
                </button>
              </p>
            </form>
            <div class="grid">
              <SessionInfo d={d} />
              <PathsPanelView d={d} />
            </div>
            <Controls d={d} />
          </main>
        </>
      ),
    });
  }
  return Page({
    language: d.language,
    csrf: d.agent.csrf,
    title,
    flavor: "standard",
    children: (
      <>
        <Header ctx={d} />
        <PortalNav ctx={d} />
        <main data-layout="standard">
          <h1>{title}</h1>
          <Notice text={d.notice} />
          <Controls d={d} />
          <div class="grid">
            <SessionInfo d={d} />
            <CustomerPanel d={d} />
            <DevicesPanel d={d} />
            <PathsPanelView d={d} />
          </div>
        </main>
      </>
    ),
  });
}

function Chrome(props: { ctx: PageContext; children: Child }) {
  const flavor = props.ctx.view.target;
  if (flavor === "embedded") return <main data-layout="embedded">{props.children}</main>;
  return (
    <>
      <Header ctx={props.ctx} />
      {flavor === "standard" ? <PortalNav ctx={props.ctx} /> : null}
      <main data-layout={flavor}>{props.children}</main>
    </>
  );
}

/** The path runner: one step at a time, then Done records the run. */
export function pathRunner(
  ctx: PageContext,
  p: { sessionId: number; path: CatalogPath; step: number; remoteButton: boolean },
): string {
  const { t, language } = ctx;
  const steps = localSteps(p.path, language);
  const step = Math.min(Math.max(p.step, 1), Math.max(steps.length, 1));
  const current = steps[step - 1];
  const url = (n: number) =>
    portalUrl(ctx.prefix, `/sessions/${p.sessionId}/paths/${p.path.uid}`, ctx.view.launchId, {
      step: String(n),
    });
  const title = localTitle(p.path, language);
  return Page({
    language,
    csrf: ctx.agent.csrf,
    title,
    flavor: ctx.view.target,
    children: (
      <Chrome ctx={ctx}>
        <section class="card" aria-labelledby="runner-h" data-testid="path-runner">
          <h1 id="runner-h">{title}</h1>
          {p.remoteButton ? <RemoteButton ctx={ctx} sessionId={p.sessionId} /> : null}
          {current
            ? (
              <>
                <p data-testid="step-count">
                  {t("step")} {String(step)} {t("of")} {String(steps.length)}
                </p>
                <h2 data-testid="step-title">{current.title}</h2>
                <p data-testid="step-body">{current.body}</p>
              </>
            )
            : null}
          <div class="controls">
            {step > 1 ? <a class="button secondary" href={url(step - 1)}>{t("back")}</a> : null}
            {step < steps.length
              ? <a class="button" href={url(step + 1)} data-testid="next-step">{t("next")}</a>
              : (
                <form
                  method="post"
                  action={`${ctx.prefix}/sessions/${p.sessionId}/paths/${p.path.uid}/done`}
                >
                  <Csrf ctx={ctx} />
                  <button type="submit" data-testid="path-done">{t("done")}</button>
                </form>
              )}
            <a
              class="button secondary"
              href={portalUrl(ctx.prefix, `/sessions/${p.sessionId}`, ctx.view.launchId, {
                panel: "list",
              })}
            >
              {t("cancel")}
            </a>
          </div>
        </section>
      </Chrome>
    ),
  });
}

/** The remote control view after a Start Remote Connection. */
export function remotePage(ctx: PageContext, sessionId: number): string {
  return Page({
    language: ctx.language,
    csrf: ctx.agent.csrf,
    title: ctx.t("remoteTitle"),
    flavor: ctx.view.target,
    children: (
      <Chrome ctx={ctx}>
        <h1>{ctx.t("session")} {String(sessionId)}</h1>
        <RemoteView d={ctx} requested />
        <p>
          <a
            class="button secondary"
            href={portalUrl(ctx.prefix, `/sessions/${sessionId}`, ctx.view.launchId, {
              panel: "list",
            })}
          >
            {ctx.t("cancel")}
          </a>
        </p>
      </Chrome>
    ),
  });
}

/** The agent's sessions. */
export function sessionsPage(
  ctx: PageContext,
  rows: {
    id: number;
    status: string;
    externalReference: string | null;
    firstName: string;
    lastName: string;
    updatedAt: Date;
  }[],
): string {
  const { t } = ctx;
  return Page({
    language: ctx.language,
    title: t("sessionsTitle"),
    flavor: "standard",
    children: (
      <Chrome ctx={ctx}>
        <h1>{t("sessionsTitle")}</h1>
        {rows.length
          ? (
            <table data-testid="sessions">
              <thead>
                <tr>
                  <th scope="col">{t("session")}</th>
                  <th scope="col">{t("customer")}</th>
                  <th scope="col">{t("externalReference")}</th>
                  <th scope="col">{t("status")}</th>
                  <th scope="col">{t("updated")}</th>
                </tr>
              </thead>
              <tbody>
                {rows.map((r) => (
                  <tr>
                    <td>
                      <a href={`${ctx.prefix}/sessions/${r.id}`}>{String(r.id)}</a>
                    </td>
                    <td>{r.firstName} {r.lastName}</td>
                    <td>{r.externalReference ?? ""}</td>
                    <td>{t(r.status === "closed" ? "closed" : "open")}</td>
                    <td>{when(r.updatedAt, ctx.language)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )
          : <p>{t("noSessions")}</p>}
      </Chrome>
    ),
  });
}

/** A short message page (not found, refused, expired form). */
export function messagePage(language: string, title: string, text: string): string {
  return Page({
    language,
    title,
    flavor: "standard",
    children: (
      <main>
        <h1>{title}</h1>
        <p class="error" role="alert">{text}</p>
      </main>
    ),
  });
}

/** The sign-in page for agents with a password. */
export function loginPage(
  p: { t: T; language: string; action: string; next: string; email: string; error: string | null },
): string {
  const { t } = p;
  return Page({
    language: p.language,
    title: t("signInTitle"),
    flavor: "standard",
    children: (
      <main>
        <h1>{t("signInTitle")}</h1>
        {p.error ? <p class="error" role="alert">{p.error}</p> : null}
        <form method="post" action={p.action}>
          <input type="hidden" name="next" value={p.next} />
          <p>
            <label>
              {t("email")}
              <br />
              <input type="email" name="email" value={p.email} required autocomplete="username" />
            </label>
          </p>
          <p>
            <label>
              {t("password")}
              <br />
              <input type="password" name="password" required autocomplete="current-password" />
            </label>
          </p>
          <button type="submit">{t("signIn")}</button>
        </form>
      </main>
    ),
  });
}
