/**
 * The agent portal's HTML: three layouts (standard, embedded, seesupport) built from the same
 * panels, the path runner, the remote control view and the sessions list (the sign-in page is
 * in sign_in_page.tsx). Plain forms: everything works without JavaScript.
 */
import type { Child } from "hono/jsx";
import { type CatalogPath, localSteps, localTitle } from "./guided_paths.ts";
import {
  Controls,
  CustomerPanel,
  DevicesPanel,
  Header,
  LaunchNotice,
  Notice,
  PathsPanelView,
  PortalNav,
  RemoteButton,
  SessionInfo,
  Value,
} from "./panels.tsx";
import { Csrf, Page, type PageContext, type ScreenData, When } from "./page_shell.tsx";
import { portalUrl } from "./view.ts";
import { bridgeSettings } from "./bridge_settings.ts";
import { agentConfig, type AgentRemote, AgentRemotePanel } from "../remote/remote_pages.tsx";
import { assetPath } from "../assets/static_files.ts";

export type { PageContext, ScreenData, T } from "./page_shell.tsx";

/** The session screen in the launch's flavor. */
export function sessionScreen(d: ScreenData): string {
  const { t, session: s } = d;
  const title = `${t("session")} ${s.id}`;
  const shell = {
    language: d.language,
    prefix: d.prefix,
    csrf: d.agent.csrf,
    title,
    bridge: bridgeSettings(d.view, s.id, { screen: true, change: d.change }),
  };
  if (d.view.target === "embedded") {
    return Page({
      ...shell,
      flavor: "embedded",
      children: (
        <main data-layout="embedded">
          <h1>
            {title} · <span class={`status-${s.status}`}>{t(s.status)}</span>
          </h1>
          <Notice text={d.notice} />
          <LaunchNotice d={d} />
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
      ...shell,
      flavor: "seesupport",
      children: (
        <>
          <Header ctx={d} />
          <main data-layout="seesupport">
            <h1>{title}</h1>
            <Notice text={d.notice} />
            <LaunchNotice d={d} />
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
    ...shell,
    flavor: "standard",
    children: (
      <>
        <Header ctx={d} />
        <PortalNav ctx={d} />
        <main data-layout="standard">
          <h1>{title}</h1>
          <Notice text={d.notice} />
          <LaunchNotice d={d} />
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
    prefix: ctx.prefix,
    csrf: ctx.agent.csrf,
    title,
    flavor: ctx.view.target,
    bridge: bridgeSettings(ctx.view, p.sessionId),
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

/** The remote view: the screen-sharing invitation and the customer's live screen. */
export function remotePage(
  ctx: PageContext,
  sessionId: number,
  remote: AgentRemote | null,
  notice: string | null,
): string {
  const actions = `${ctx.prefix}/sessions/${sessionId}/remote`;
  return Page({
    language: ctx.language,
    prefix: ctx.prefix,
    csrf: ctx.agent.csrf,
    title: ctx.t("remoteTitle"),
    flavor: ctx.view.target,
    bridge: bridgeSettings(ctx.view, sessionId),
    head: remote
      ? (
        <>
          <link rel="stylesheet" href={assetPath("remote.css", ctx.prefix)} />
          <meta
            name="remote-config"
            content={JSON.stringify(agentConfig(ctx.prefix, ctx.language, remote, ctx.agent.csrf))}
          />
          <script type="module" src={assetPath("remote-agent.js", ctx.prefix)}></script>
        </>
      )
      : <link rel="stylesheet" href={assetPath("remote.css", ctx.prefix)} />,
    children: (
      <Chrome ctx={ctx}>
        <h1>{ctx.t("session")} {String(sessionId)}</h1>
        <LaunchNotice d={ctx} />
        <AgentRemotePanel
          language={ctx.language}
          remote={remote}
          actions={actions}
          csrfFields={<Csrf ctx={ctx} />}
          notice={notice}
        />
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
    prefix: ctx.prefix,
    title: t("sessionsTitle"),
    flavor: "standard",
    children: (
      <Chrome ctx={ctx}>
        <h1>{t("sessionsTitle")}</h1>
        {rows.length
          ? (
            <div class="card table-wrap">
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
                      <td>
                        <Value t={t} value={r.externalReference} />
                      </td>
                      <td>
                        <span class={`badge ${r.status === "closed" ? "danger" : "ok"}`}>
                          {t(r.status === "closed" ? "closed" : "open")}
                        </span>
                      </td>
                      <td>
                        <When date={r.updatedAt} language={ctx.language} />
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )
          : <p class="empty">{t("noSessions")}</p>}
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
