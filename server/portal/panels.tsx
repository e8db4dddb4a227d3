/** The panels of the session screen: session info, customer, devices, controls, guided paths. */
import { type CatalogPath, localTitle } from "./guided_paths.ts";
import { Csrf, type PageContext, type ScreenData, When } from "./page_shell.tsx";
import { deviceLabel } from "./device_labels.ts";
import { portalUrl } from "./view.ts";
import { LanguageMenu } from "./language_menu.tsx";

/** A value, or a muted placeholder saying none was given. */
export function Value(props: { t: PageContext["t"]; value: unknown }) {
  const v = props.value;
  if (v === null || v === undefined || v === "") {
    return <span class="empty">{props.t("notGiven")}</span>;
  }
  return <>{String(v)}</>;
}

export function SessionInfo(props: { d: ScreenData }) {
  const { d } = props;
  const { t, session: s } = d;
  const a = s.assignee;
  return (
    <section class="card" aria-labelledby="info-h">
      <h2 id="info-h">{t("sessionDetails")}</h2>
      <dl class="kv">
        <dt>{t("status")}</dt>
        <dd class={`status-${s.status}`} data-testid="status">{t(s.status)}</dd>
        <dt>{t("assignee")}</dt>
        <dd data-testid="assignee">{a ? `${a.firstName} ${a.lastName}` : t("unassigned")}</dd>
        {d.settings.externalSessionId
          ? (
            <>
              <dt>{t("externalReference")}</dt>
              <dd data-testid="external-reference">
                <Value t={t} value={s.externalReference} />
              </dd>
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
            <dd data-field={name}>
              <Value t={t} value={value} />
            </dd>
          </>
        ))}
        <dt>{t("created")}</dt>
        <dd>
          <When date={s.createdAt} language={d.language} />
        </dd>
        <dt>{t("updated")}</dt>
        <dd>
          <When date={s.updatedAt} language={d.language} />
        </dd>
      </dl>
    </section>
  );
}

export function CustomerPanel(props: { d: ScreenData }) {
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
      <dl class="kv">
        {rows.map(([label, value]) => (
          <>
            <dt>{label}</dt>
            <dd>
              <Value t={t} value={value} />
            </dd>
          </>
        ))}
      </dl>
    </section>
  );
}

export interface AvProduct {
  company?: string;
  name?: string;
  version?: string;
  latest?: boolean;
}

export function DevicesPanel(props: { d: ScreenData }) {
  const { d } = props;
  const { t } = d;
  return (
    <section class="card" aria-labelledby="devices-h" data-testid="devices">
      <h2 id="devices-h">{t("devices")}</h2>
      {d.session.devices.length === 0 ? <p class="empty">{t("noDevices")}</p> : null}
      {d.session.devices.map((dev) => {
        const { av_prods: av, ...props } = dev.properties as Record<string, unknown> & {
          av_prods?: AvProduct[];
        };
        return (
          <div data-device={dev.kind}>
            <h3>{t(dev.kind)}{props.name ? `: ${String(props.name)}` : ""}</h3>
            <dl class="kv">
              {Object.entries(props).map(([k, v]) => (
                <>
                  <dt data-key={k}>{deviceLabel(k, d.language)}</dt>
                  <dd>
                    <Value t={t} value={v} />
                  </dd>
                </>
              ))}
            </dl>
            {av?.length
              ? (
                <div class="table-wrap" tabindex={0}>
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
                </div>
              )
              : null}
          </div>
        );
      })}
    </section>
  );
}

export function Controls(props: { d: ScreenData }) {
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

export function PathItem(props: { d: ScreenData; path: CatalogPath }) {
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

export function RemoteButton(props: { ctx: PageContext; sessionId: number }) {
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

export function PathsPanelView(props: { d: ScreenData }) {
  const { d } = props;
  const { t, panel, session: s } = d;
  const action = portalUrl(d.prefix, `/sessions/${s.id}`, null);
  return (
    <section class="card" aria-labelledby="paths-h" data-testid="paths-panel">
      <h2 id="paths-h">{t("guidedPaths")}</h2>
      {s.pathRuns.length
        ? (
          <>
            <h3>{t("pathsRun")}</h3>
            <ul data-testid="path-runs">
              {s.pathRuns.map((r) => (
                <li key={r.ranAt}>
                  {r.title} · <When date={r.ranAt} language={d.language} />
                </li>
              ))}
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
        : <p class="empty">{t("noPaths")}</p>}
    </section>
  );
}

export function Header(props: { ctx: PageContext }) {
  const { t, agent, language } = props.ctx;
  return (
    <header class="bar">
      <strong>{t("portal")}</strong>
      <span data-testid="agent-name" lang={language}>
        {agent.firstName} {agent.lastName}
      </span>
      <LanguageMenu ctx={props.ctx} />
      <form method="post" action={`${props.ctx.prefix}/logout`} class="logout">
        <input type="hidden" name="csrf" value={agent.csrf} />
        <button type="submit" class="secondary">{t("signOut")}</button>
      </form>
    </header>
  );
}

export function PortalNav(props: { ctx: PageContext }) {
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

export function Notice(props: { text: string | null }) {
  return props.text ? <p class="notice" role="status">{props.text}</p> : null;
}

/**
 * What the launch that opened this session ignored or repaired that the agent should know
 * (view.ts agentNotices): a notice the agent dismisses (a dialog's own form: no script).
 */
export function LaunchNotice(props: { d: Pick<ScreenData, "view" | "t"> }) {
  const notices = props.d.view.notices ?? [];
  if (!notices.length) return null;
  const { t } = props.d;
  return (
    <dialog open class="notice launch-notice" data-testid="launch-notice">
      <p>{t("launchAdjusted")}</p>
      <ul>
        {notices.map((w) => (
          <li>
            <code>{w.path}</code>: {w.message}
          </li>
        ))}
      </ul>
      <form method="dialog">
        <button type="submit">{t("dismiss")}</button>
      </form>
    </dialog>
  );
}
