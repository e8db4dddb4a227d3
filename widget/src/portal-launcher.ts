/// <reference lib="dom" />
/**
 * `<portal-launcher>`: opens the agent portal from a host page. The host backend (sign-url) builds
 * and signs the launch payload, so the API key never reaches the browser; the element submits the
 * signed request to the chosen target (tab, self, iframe) and shows launch errors inline.
 */
import { html, LitElement, nothing, type PropertyValues } from "lit";
import { keyed } from "lit/directives/keyed.js";
import { submitForm } from "./submit.ts";
import { launcherStyles } from "./styles.ts";
import { MESSAGE_TYPES, SIGNED_REQUEST_FIELD } from "../../server/launch/contract.ts";
import {
  COOKIES_BLOCKED,
  readHostMessage,
  type SessionChange,
} from "../../server/launch/host_messages.ts";
import {
  FRAME_TIMEOUT_MS,
  frameBlocked,
  type LaunchedDetail,
  type LaunchErrorDetail,
  launchFailure as failure,
  type LaunchStartDetail,
  type LaunchStatus,
  type LaunchTarget,
  parseParameters,
  type PortalReadyDetail,
  readSignResponse,
  readValidateResponse,
  type SessionChangeDetail,
  TARGETS,
  toFailure,
  validateFailure,
  warmUpUrl,
} from "./protocol.ts";

export type {
  LaunchedDetail,
  LaunchErrorDetail,
  LaunchStartDetail,
  LaunchStatus,
  LaunchTarget,
  PortalReadyDetail,
  SessionChangeDetail,
};

let counter = 0;

/**
 * The launcher element.
 *
 * @example
 * ```html
 * <script type="module" src="https://portal.example.com/portal/widget/portal-launcher.js"></script>
 * <portal-launcher sign-url="/portal-launch" target="iframe" autoresize
 *   parameters='{"caseId": "CASE42"}'>Open the portal</portal-launcher>
 * ```
 *
 * @fires portal-launch-start - `{target, parameters}`: a launch began (click or `launch()`).
 * @fires portal-launched - `{target, action}`: the signed request was submitted to the target.
 * @fires portal-launch-error - `{status, code, message, errors}`: the launch failed (shown inline).
 * @fires portal-ready - `{sessionId, launchId, flavor}`: the portal shows the session (iframe, tab).
 * @fires portal-session-change - `{sessionId, event}`: the agent closed, reopened, assigned,
 *   transferred the session or completed a path in it.
 * @slot - The button's content (default: the `label` attribute, "Open portal").
 * @csspart button - The launch button.
 * @csspart error - The inline error box (`role="alert"`).
 * @csspart fallback - The "Open in a new tab" button shown when the browser blocks the frame's
 *   cookies.
 * @csspart frame - The portal's iframe (target `iframe`).
 * @cssprop --portal-launcher-frame-width - The iframe's width (default `100%` of the element).
 * @cssprop --portal-launcher-frame-height - The iframe's height (default `600px`; the starting
 *   height with `autoresize`).
 * @cssprop --portal-launcher-frame-min-height - The smallest autoresized height (default `200px`).
 * @cssprop --portal-launcher-frame-max-height - The largest autoresized height (default `none`).
 */
export class PortalLauncher extends LitElement {
  static override shadowRootOptions = { ...LitElement.shadowRootOptions, delegatesFocus: true };

  static override properties = {
    signUrl: { type: String, attribute: "sign-url" },
    portalUrl: { type: String, attribute: "portal-url" },
    target: { type: String },
    parameters: {
      attribute: "parameters",
      converter: { fromAttribute: (value: string | null) => parseParameters(value) },
    },
    label: { type: String },
    validate: { type: Boolean },
    autoresize: { type: Boolean },
    frameTimeout: { type: Number, attribute: "frame-timeout" },
    disabled: { type: Boolean, reflect: true },
    status: { type: String, reflect: true },
    failure: { attribute: false, state: true },
    framed: { type: Boolean, state: true },
    frameHeight: { type: Number, state: true },
  };

  static override styles = launcherStyles;

  /** The host backend endpoint that signs launches (required). */
  declare signUrl: string;
  /**
   * The portal's URL (`{portal_url}`), optional. With target `iframe`, a hidden frame loads the
   * portal's empty warm-up page (`{portal_url}/widget/warm`) and the portal's frame is made at once,
   * hidden and blank: at the click the browser has the portal's process, connection and the frame.
   */
  declare portalUrl: string;
  /** Where the portal opens: a new tab (default), this page, or an iframe in the element. */
  declare target: LaunchTarget;
  /** Launch parameters the host page supplies (contactId, referenceNumber, ...). */
  declare parameters: Record<string, unknown>;
  /** The button's text when the default slot is empty. */
  declare label: string;
  /** Dry-run the signed request before navigating. */
  declare validate: boolean;
  /** The iframe follows the portal page's content height (min/max: CSS custom properties). */
  declare autoresize: boolean;
  /** Ms a frame may take to report `ready` before `frame_blocked` (default 8000). */
  declare frameTimeout: number;
  /** Disables the button. */
  declare disabled: boolean;
  /**
   * Where the launch stands, reflected as an attribute for styling: `idle`, `signing` (asking
   * sign-url), `validating` (the portal's dry run), `open` (submitted to its target), `error`.
   */
  declare status: LaunchStatus;
  declare private failure: LaunchErrorDetail | null;
  declare private framed: boolean;
  declare private frameHeight: number | null;

  readonly #frameName = `portal-launcher-${++counter}-${Math.random().toString(36).slice(2, 8)}`;
  #portalOrigin: string | null = null;
  #tab: Window | null = null;
  /** The portal frame's generation: a frame that showed a session is replaced, never reused. */
  #frameKey = 0;
  #frameTimer: ReturnType<typeof setTimeout> | undefined;
  #onMessage = (event: MessageEvent) => this.#portalMessage(event);

  constructor() {
    super();
    this.signUrl = "";
    this.portalUrl = "";
    this.target = "tab";
    this.parameters = {};
    this.label = "Open portal";
    this.validate = false;
    this.autoresize = false;
    this.frameTimeout = FRAME_TIMEOUT_MS;
    this.disabled = false;
    this.status = "idle";
    this.failure = null;
    this.framed = false;
    this.frameHeight = null;
  }

  override connectedCallback(): void {
    super.connectedCallback();
    if (this.framed) this.close(); // a moved element's frame reloads: its session is gone
    globalThis.addEventListener("message", this.#onMessage);
  }

  override disconnectedCallback(): void {
    globalThis.removeEventListener("message", this.#onMessage);
    clearTimeout(this.#frameTimer);
    super.disconnectedCallback();
  }

  /** Launches as a click would (same checks); resolves when the request was submitted or failed. */
  launch(): Promise<void> {
    return this.#launch(this.target);
  }

  /** Removes the iframe (with portal-url, a new hidden one waits), or forgets its tab. */
  close(): void {
    this.#unframe();
    this.frameHeight = null;
    this.#tab = null;
    this.#portalOrigin = null;
    this.failure = null;
    this.status = "idle";
  }

  protected override willUpdate(changed: PropertyValues<this>): void {
    if (changed.has("target") && this.target !== "iframe" && this.framed) this.close(); // frame gone
    if (changed.has("target") && !TARGETS.includes(this.target)) {
      this.failure = {
        status: 0,
        code: "invalid_target",
        message: `target must be one of ${TARGETS.join(", ")} (got "${this.target}")`,
        errors: [],
      };
      this.status = "error";
    }
  }

  override render() {
    const f = this.failure;
    const warmUp = this.target === "iframe" ? warmUpUrl(this.portalUrl) : null;
    const busy = this.status === "signing" || this.status === "validating";
    return html`
      <button
        part="button"
        type="button"
        ?disabled=${this.disabled || busy}
        aria-busy=${busy ? "true" : "false"}
        @click=${this.#onClick}
      ><slot>${this.label}</slot></button>
      ${f
        ? html`<div part="error" class="error" role="alert">
          <span class="message">${f.message}</span>
          ${
          f.errors.length
            ? html`<ul>${
              f.errors.map((e) => html`<li><code>${e.path}</code>: ${e.message}</li>`)
            }</ul>`
            : nothing
        }
          ${
          f.code === COOKIES_BLOCKED
            ? html`<div><button part="fallback" type="button" @click=${this.#openInTab}>
              Open in a new tab</button></div>`
            : nothing
        }
        </div>`
        : nothing}
      ${this.target === "iframe" && (this.framed || warmUp)
        ? keyed(
          this.#frameKey,
          html`
            <iframe
              part=${this.framed ? "frame" : nothing}
              name=${this.#frameName}
              title="Agent portal"
              ?hidden=${!this.framed}
              aria-hidden=${this.framed ? nothing : "true"}
              tabindex=${this.framed ? nothing : "-1"}
              class=${this.autoresize ? "autoresize" : ""}
              style=${this.autoresize && this.frameHeight !== null
                ? `height: ${this.frameHeight}px`
                : ""}
            ></iframe>
          `,
        )
        : nothing}
      ${warmUp
        ? html`<iframe class="warm" hidden aria-hidden="true" tabindex="-1" title="" src=${warmUp}></iframe>`
        : nothing}
    `;
  }

  #onClick(): void {
    void this.#launch(this.target);
  }

  /** The blocked-cookie fallback: a new signed request, opened in a tab inside this click. */
  #openInTab(): void {
    this.#unframe();
    void this.#launch("tab");
  }

  #emit<T>(type: string, detail: T): void {
    this.dispatchEvent(new CustomEvent<T>(type, { detail, bubbles: true, composed: true }));
  }

  #fail(detail: LaunchErrorDetail): void {
    this.failure = detail;
    this.status = "error";
    this.#emit<LaunchErrorDetail>("portal-launch-error", detail);
  }

  async #launch(target: LaunchTarget): Promise<void> {
    const busy = this.status === "signing" || this.status === "validating";
    if (busy || this.disabled) return; // a double click launches once
    if (!TARGETS.includes(target)) return;
    if (!this.signUrl) {
      this.#fail(failure(0, "sign_url_missing", "sign-url is required"));
      return;
    }
    this.status = "signing";
    clearTimeout(this.#frameTimer);
    this.failure = null;
    this.#emit<LaunchStartDetail>("portal-launch-start", { target, parameters: this.parameters });
    // A tab must be opened inside the click, before any await, or popup blockers refuse it.
    let tab: Window | null = null;
    const tabName = `${this.#frameName}-tab`;
    if (target === "tab") {
      tab = globalThis.open("about:blank", tabName);
      if (!tab) {
        const blocked =
          "The browser blocked the new tab. Allow pop-ups for this site and try again.";
        this.#fail(failure(0, "popup_blocked", blocked));
        return;
      }
    }
    try {
      const signed = await readSignResponse(
        await fetch(this.signUrl, {
          method: "POST",
          credentials: "same-origin",
          headers: { "Content-Type": "application/json", Accept: "application/json" },
          body: JSON.stringify({ parameters: this.parameters }),
        }).catch((err) => {
          throw failure(0, "sign_url_unreachable", `Cannot reach ${this.signUrl}: ${err.message}`);
        }),
      );
      if (this.validate) {
        this.status = "validating";
        const body = new URLSearchParams({ [SIGNED_REQUEST_FIELD]: signed.signedRequest });
        await readValidateResponse(
          await fetch(`${signed.action}/validate`, { method: "POST", body }).catch(async (err) => {
            throw await validateFailure(signed.action, err);
          }),
        );
      }
      this.#portalOrigin = new URL(signed.action, location.href).origin;
      this.#tab = tab;
      if (target === "iframe") {
        this.framed = true;
        this.frameHeight = null;
        await this.updateComplete;
        // The target changed while signing: no frame of ours to post into (never a new window).
        if (!this.#frame()) {
          this.#unframe();
          throw failure(0, "target_changed", "The target changed; launch again");
        }
      }
      const into = target === "self" ? "_self" : target === "tab" ? tabName : this.#frameName;
      // The form lives in the element's shadow root, so the iframe's name resolves next to it.
      submitForm(this.renderRoot, signed.action, signed.signedRequest, into);
      this.status = "open";
      // A frame the portal refuses (frame-ancestors) reports nothing: time it out.
      const ms = this.frameTimeout;
      if (into === this.#frameName) {
        this.#frameTimer = setTimeout(() => this.#fail(frameBlocked(location.origin, ms)), ms);
      }
      this.#emit<LaunchedDetail>("portal-launched", { target, action: signed.action });
    } catch (err) {
      tab?.close();
      this.#fail(toFailure(err));
    }
  }

  /** The shown frame goes; a frame made again starts anew (a fresh warm-up frame, or none). */
  #unframe(): void {
    clearTimeout(this.#frameTimer);
    if (this.framed) this.#frameKey++;
    this.framed = false;
  }

  /** The portal's frame, when there is one (hidden while it waits for the launch). */
  #frame(): HTMLIFrameElement | null {
    return this.renderRoot.querySelector<HTMLIFrameElement>(`iframe[name="${this.#frameName}"]`);
  }

  /** Only the portal's origin, and only this element's own iframe or tab, are listened to. */
  #portalMessage(event: MessageEvent): void {
    if (!this.#portalOrigin || event.origin !== this.#portalOrigin) return;
    const frame = this.#frame()?.contentWindow ?? null;
    const mine = event.source !== null &&
      (event.source === frame || (this.#tab !== null && event.source === this.#tab));
    if (!mine) return;
    const m = readHostMessage(event.data);
    if (!m) return;
    if (event.source === frame) clearTimeout(this.#frameTimer); // the portal answers in the frame
    if (m.type === MESSAGE_TYPES.error) {
      this.#fail({ status: m.status, code: m.code, message: m.message, errors: m.errors });
    } else if (m.type === MESSAGE_TYPES.ready) {
      const { sessionId, launchId, flavor } = m;
      this.#emit<PortalReadyDetail>("portal-ready", { sessionId, launchId, flavor });
    } else if (m.type === MESSAGE_TYPES.session) {
      const event: SessionChange = m.event;
      this.#emit<SessionChangeDetail>("portal-session-change", { sessionId: m.sessionId, event });
    } else if (m.type === MESSAGE_TYPES.resize && this.autoresize && event.source === frame) {
      // The frame is border-box: its height is the page's plus its own borders.
      const iframe = this.#frame()!;
      this.frameHeight = m.height + iframe.offsetHeight - iframe.clientHeight;
    }
  }
}

if (!customElements.get("portal-launcher")) {
  customElements.define("portal-launcher", PortalLauncher);
}

declare global {
  interface HTMLElementTagNameMap {
    "portal-launcher": PortalLauncher;
  }
  interface HTMLElementEventMap {
    "portal-launch-start": CustomEvent<LaunchStartDetail>;
    "portal-launched": CustomEvent<LaunchedDetail>;
    "portal-launch-error": CustomEvent<LaunchErrorDetail>;
    "portal-ready": CustomEvent<PortalReadyDetail>;
    "portal-session-change": CustomEvent<SessionChangeDetail>;
  }
}
