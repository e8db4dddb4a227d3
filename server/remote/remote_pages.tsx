/** @jsxImportSource hono/jsx */
/**
 * The screen-sharing pages: the customer's page (`/r/<token>`), the code entry (`/r`), the pages
 * for an ended, expired or taken link, and the agent's panel in the portal's remote view. The
 * browser side is server/assets/files/remote-customer.js and remote-agent.js (static files: the
 * pages' CSP allows no inline script); each reads its settings from <meta name="remote-config">.
 */
import type { Child } from "hono/jsx";
import { assetPath } from "../assets/static_files.ts";
import { remoteWords, type RT } from "./remote_i18n.ts";

/** What the browser script of a side reads. */
export interface RemoteClientConfig {
  side: "agent" | "customer";
  /** The signaling socket's path (the page's origin is prepended by the script). */
  ws: string;
  /** GET path of the ICE configuration. */
  ice: string;
  /** The words the script shows. */
  words: Record<string, string>;
}

function scriptWords(t: RT, agent: string): Record<string, string> {
  const keys = [
    "waiting",
    "connected",
    "sharingNow",
    "ended",
    "failed",
    "noRelay",
    "you",
    "statusInvited",
    "statusJoined",
    "statusSharing",
    "statusEnded",
    "statusExpired",
    "fit",
    "actual",
  ] as const;
  return Object.fromEntries(keys.map((k) => [k, t(k, { agent })]));
}

function Shell(
  props: {
    language: string;
    title: string;
    prefix: string;
    script?: string;
    config?: unknown;
    children: Child;
  },
): string {
  const page = (
    <html lang={props.language}>
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="referrer" content="no-referrer" />
        <title>{props.title}</title>
        <link rel="icon" href={assetPath("favicon.svg", props.prefix)} type="image/svg+xml" />
        <link rel="stylesheet" href={assetPath("base.css", props.prefix)} />
        <link rel="stylesheet" href={assetPath("portal.css", props.prefix)} />
        <link rel="stylesheet" href={assetPath("remote.css", props.prefix)} />
        {props.config ? <meta name="remote-config" content={JSON.stringify(props.config)} /> : null}
        {props.script
          ? <script type="module" src={assetPath(props.script, props.prefix)}></script>
          : null}
      </head>
      <body class="standard remote-page">{props.children}</body>
    </html>
  );
  return "<!doctype html>" + page.toString();
}

/** The chat box of either side. */
function Chat(props: { t: RT }) {
  const { t } = props;
  return (
    <section class="card remote-chat" aria-labelledby="chat-h">
      <h2 id="chat-h">{t("chat")}</h2>
      <ol id="chat-log" class="chat-log" aria-live="polite" data-testid="chat-log"></ol>
      <form id="chat-form" class="chat-form">
        <label for="chat-input">{t("message")}</label>
        <input id="chat-input" name="message" autocomplete="off" maxlength={2000} />
        <button type="submit" id="chat-send" disabled>{t("send")}</button>
      </form>
    </section>
  );
}

/** The customer's page of an invitation that can be joined. */
export function customerPage(p: {
  language: string;
  prefix: string;
  token: string;
  agent: string;
  organization: string;
}): string {
  const t = remoteWords(p.language);
  const who = { agent: p.agent || "Support", organization: p.organization || "Portal Launcher" };
  const config: RemoteClientConfig = {
    side: "customer",
    ws: `${p.prefix}/r/${p.token}/ws`,
    ice: `${p.prefix}/remote/ice?token=${p.token}`,
    words: scriptWords(t, who.agent),
  };
  return Shell({
    language: p.language,
    title: t("title"),
    prefix: p.prefix,
    script: "remote-customer.js",
    config,
    children: (
      <main data-layout="standard" class="remote-customer">
        <h1>{t("title")}</h1>
        <section class="card" aria-labelledby="ask-h">
          <h2 id="ask-h">{t("asks", who)}</h2>
          <p>{t("what", who)}</p>
          <p>
            <label class="check">
              <input type="checkbox" id="consent" data-testid="consent" /> {t("consent", who)}
            </label>
          </p>
          <p>
            <label class="check">
              <input type="checkbox" id="camera" /> {t("camera")}
            </label>
          </p>
          <div class="actions remote-actions">
            <button type="button" id="share" data-testid="share" disabled>{t("share")}</button>
            <button type="button" id="stop" class="secondary" hidden>{t("stop")}</button>
            <button type="button" id="end" class="danger" data-testid="end">{t("end")}</button>
          </div>
          <p id="state" class="remote-state" role="status" aria-live="polite">{t("waiting")}</p>
        </section>
        <section class="card" aria-labelledby="preview-h">
          <h2 id="preview-h">{t("preview")}</h2>
          <div class="remote-stage preview">
            <video id="preview" muted playsinline autoplay></video>
            <div id="pointer" class="remote-pointer" data-testid="pointer" hidden></div>
          </div>
        </section>
        <Chat t={t} />
      </main>
    ),
  });
}

/** The code entry page (`{portal_url}/r`), with an error when a code did not work. */
export function codePage(
  p: { language: string; prefix: string; error?: string; code?: string },
): string {
  const t = remoteWords(p.language);
  return Shell({
    language: p.language,
    title: t("codeTitle"),
    prefix: p.prefix,
    children: (
      <main data-layout="standard" class="remote-customer">
        <h1>{t("codeTitle")}</h1>
        <form method="post" action={`${p.prefix}/r`} class="card">
          {p.error ? <p class="alert error" role="alert" id="code-error">{p.error}</p> : null}
          <label for="code">{t("codeLabel")}</label>
          <input
            id="code"
            name="code"
            inputmode="numeric"
            autocomplete="one-time-code"
            pattern="[0-9 ]{9,11}"
            maxlength={11}
            required
            value={p.code ?? ""}
            aria-describedby={p.error ? "code-hint code-error" : "code-hint"}
            aria-invalid={p.error ? "true" : undefined}
          />
          <p id="code-hint" class="hint">{t("codeHint")}</p>
          <button type="submit">{t("join")}</button>
        </form>
      </main>
    ),
  });
}

/** A link that cannot be used (ended, expired, open on another device). */
export function linkStatePage(
  p: { language: string; prefix: string; state: "ended" | "expired" | "joined" },
): string {
  const t = remoteWords(p.language);
  return Shell({
    language: p.language,
    title: t("title"),
    prefix: p.prefix,
    children: (
      <main data-layout="standard" class="remote-customer">
        <h1>{t("title")}</h1>
        <p class="alert" role="status" data-testid="link-state">{t(p.state)}</p>
      </main>
    ),
  });
}

/** The agent's view of the session's open remote session (invitation, live screen, chat). */
export interface AgentRemote {
  id: number;
  joinUrl: string;
  code: string;
  expiresAt: Date;
  status: string;
  customerEmail: string | null;
}

/** The script config of the agent's view. */
export function agentConfig(
  prefix: string,
  language: string,
  remote: AgentRemote,
  csrf: string,
): RemoteClientConfig {
  const t = remoteWords(language);
  return {
    side: "agent",
    ws: `${prefix}/remote/${remote.id}/ws?csrf=${encodeURIComponent(csrf)}`,
    ice: `${prefix}/remote/ice?remote=${remote.id}`,
    words: scriptWords(t, ""),
  };
}

/** The agent's panel: the invitation to give the customer, then the customer's live screen. */
export function AgentRemotePanel(props: {
  language: string;
  remote: AgentRemote | null;
  actions: string;
  csrfFields: Child;
  notice: string | null;
}) {
  const t = remoteWords(props.language);
  const r = props.remote;
  const code = r ? `${r.code.slice(0, 3)} ${r.code.slice(3, 6)} ${r.code.slice(6)}` : "";
  return (
    <section class="card" aria-labelledby="remote-h" data-testid="remote-view">
      <h2 id="remote-h">{t("agentTitle")}</h2>
      {props.notice ? <p class="notice" role="status">{props.notice}</p> : null}
      {r
        ? (
          <>
            <dl class="kv remote-invite" data-testid="remote-invite">
              <dt>{t("link")}</dt>
              <dd>
                <input id="join-url" readonly value={r.joinUrl} aria-label={t("link")} />
                <button type="button" id="copy-link" class="secondary">{t("copy")}</button>
              </dd>
              <dt>{t("code")}</dt>
              <dd>
                <strong data-testid="remote-code">{code}</strong>
              </dd>
              <dt>{t("expires")}</dt>
              <dd>
                <time datetime={r.expiresAt.toISOString()}>
                  {new Intl.DateTimeFormat(props.language, { timeStyle: "short" }).format(
                    r.expiresAt,
                  )}
                </time>
              </dd>
              <dt>{t("status")}</dt>
              <dd>
                <span id="state" role="status" aria-live="polite" data-testid="remote-state">
                  {t(statusKey(r.status))}
                </span>
              </dd>
            </dl>
            <div class="actions">
              {r.customerEmail
                ? (
                  <form method="post" action={`${props.actions}/${r.id}/mail`}>
                    {props.csrfFields}
                    <button type="submit" class="secondary">{t("mail")}</button>
                  </form>
                )
                : null}
              <form method="post" action={props.actions}>
                {props.csrfFields}
                <button type="submit" class="secondary">{t("newInvite")}</button>
              </form>
              <button type="button" id="end" class="danger" data-testid="end">{t("end")}</button>
            </div>
            <p class="hint">{t("pointerHint")}</p>
            <div class="remote-stage fit" id="stage">
              <video id="screen" playsinline autoplay muted data-testid="screen"></video>
              <video id="camera-video" class="pip" playsinline autoplay muted hidden></video>
            </div>
            <p>
              <button type="button" id="fit" class="secondary" aria-pressed="true">
                {t("fit")}
              </button>
            </p>
            <Chat t={t} />
          </>
        )
        : (
          <>
            <p>{t("noInvite")}</p>
            <form method="post" action={props.actions}>
              {props.csrfFields}
              <button type="submit">{t("newInvite")}</button>
            </form>
          </>
        )}
    </section>
  );
}

function statusKey(status: string) {
  switch (status) {
    case "joined":
      return "statusJoined" as const;
    case "sharing":
      return "statusSharing" as const;
    case "ended":
      return "statusEnded" as const;
    case "expired":
      return "statusExpired" as const;
    default:
      return "statusInvited" as const;
  }
}
