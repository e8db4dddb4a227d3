/// <reference lib="dom" />
/**
 * `<portal-launcher>`: opens the agent portal from a host page. The host backend (sign-url) builds
 * and signs the launch payload, so the API key never reaches the browser; the element submits the
 * signed request to the chosen target (tab, self, iframe) and shows launch errors inline.
 */
import { css, html, LitElement, nothing, type PropertyValues } from "lit";
import { MESSAGE_TYPES } from "../../server/launch/contract.ts";
import {
  type LaunchedDetail,
  type LaunchErrorDetail,
  type LaunchStartDetail,
  type LaunchTarget,
  parseParameters,
  readSignResponse,
  readValidateResponse,
  TARGETS,
} from "./protocol.ts";

export type { LaunchedDetail, LaunchErrorDetail, LaunchStartDetail, LaunchTarget };

let counter = 0;

/**
 * The launcher element.
 *
 * @example
 * ```html
 * <script type="module" src="https://portal.example.com/portal/widget/portal-launcher.js"></script>
 * <portal-launcher sign-url="/portal-launch" target="iframe"
 *   parameters='{"caseId": "CASE42"}'>Open the portal</portal-launcher>
 * ```
 *
 * @fires portal-launch-start - `{target, parameters}`: a launch began (click or `launch()`).
 * @fires portal-launched - `{target, action}`: the signed request was submitted to the target.
 * @fires portal-launch-error - `{status, message, errors}`: the launch failed (shown inline too).
 * @slot - The button's content (default: the `label` attribute, "Open portal").
 * @csspart button - The launch button.
 * @csspart error - The inline error box (`role="alert"`).
 * @csspart frame - The portal's iframe (target `iframe`).
 * @cssprop --portal-launcher-frame-width - The iframe's width (default `100%`).
 * @cssprop --portal-launcher-frame-height - The iframe's height (default `600px`).
 */
export class PortalLauncher extends LitElement {
  static override properties = {
    signUrl: { type: String, attribute: "sign-url" },
    target: { type: String },
    parameters: {
      attribute: "parameters",
      converter: { fromAttribute: (value: string | null) => parseParameters(value) },
    },
    label: { type: String },
    validate: { type: Boolean },
    disabled: { type: Boolean, reflect: true },
    busy: { type: Boolean, state: true },
    failure: { attribute: false, state: true },
    framed: { type: Boolean, state: true },
  };

  static override styles = css`
    :host {
      display: inline-block;
      font: inherit;
    }
    :host([hidden]) {
      display: none;
    }
    button {
      font: inherit;
      cursor: pointer;
      padding: 0.4em 1em;
      border-radius: 4px;
      border: 1px solid #1d4ed8;
      background: #1d4ed8;
      color: #fff;
    }
    button:disabled {
      opacity: 0.6;
      cursor: default;
    }
    button:focus-visible {
      outline: 3px solid #f59e0b;
      outline-offset: 2px;
    }
    .error {
      margin-top: 0.5em;
      padding: 0.5em 0.75em;
      border: 1px solid #c53030;
      background: #fde8e8;
      color: #742a2a;
      border-radius: 4px;
    }
    .error ul {
      margin: 0.25em 0 0;
      padding-left: 1.25em;
    }
    iframe {
      display: block;
      margin-top: 0.5em;
      border: 1px solid #d9e2ec;
      width: var(--portal-launcher-frame-width, 100%);
      height: var(--portal-launcher-frame-height, 600px);
    }
    iframe[hidden] {
      display: none;
    }
  `;

  /** The host backend endpoint that signs launches (required). */
  declare signUrl: string;
  /** Where the portal opens: a new tab (default), this page, or an iframe in the element. */
  declare target: LaunchTarget;
  /** Launch parameters the host page supplies (contactId, referenceNumber, ...). */
  declare parameters: Record<string, unknown>;
  /** The button's text when the default slot is empty. */
  declare label: string;
  /** Dry-run the signed request before navigating. */
  declare validate: boolean;
  /** Disables the button. */
  declare disabled: boolean;
  declare private busy: boolean;
  declare private failure: LaunchErrorDetail | null;
  declare private framed: boolean;

  readonly #frameName = `portal-launcher-${++counter}-${Math.random().toString(36).slice(2, 8)}`;
  #portalOrigin: string | null = null;
  #onMessage = (event: MessageEvent) => this.#portalMessage(event);

  constructor() {
    super();
    this.signUrl = "";
    this.target = "tab";
    this.parameters = {};
    this.label = "Open portal";
    this.validate = false;
    this.disabled = false;
    this.busy = false;
    this.failure = null;
    this.framed = false;
  }

  override connectedCallback(): void {
    super.connectedCallback();
    globalThis.addEventListener("message", this.#onMessage);
  }

  override disconnectedCallback(): void {
    globalThis.removeEventListener("message", this.#onMessage);
    super.disconnectedCallback();
  }

  /** Launches as a click would (for hosts that start it from their own UI). */
  launch(): Promise<void> {
    return this.#launch();
  }

  protected override willUpdate(changed: PropertyValues<this>): void {
    if (changed.has("target") && !TARGETS.includes(this.target)) {
      this.failure = {
        status: 0,
        message: `target must be one of ${TARGETS.join(", ")} (got "${this.target}")`,
        errors: [],
      };
    }
  }

  override render() {
    const f = this.failure;
    return html`
      <button
        part="button"
        type="button"
        ?disabled=${this.disabled || this.busy}
        aria-busy=${this.busy ? "true" : "false"}
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
        </div>`
        : nothing}
      ${this.target === "iframe"
        ? html`
          <iframe
            part="frame"
            name=${this.#frameName}
            title="Agent portal"
            ?hidden=${!this.framed}
          ></iframe>
        `
        : nothing}
    `;
  }

  #onClick(): void {
    void this.#launch();
  }

  #emit<T>(type: string, detail: T): void {
    this.dispatchEvent(new CustomEvent<T>(type, { detail, bubbles: true, composed: true }));
  }

  #fail(detail: LaunchErrorDetail): void {
    this.failure = detail;
    this.#emit<LaunchErrorDetail>("portal-launch-error", detail);
  }

  async #launch(): Promise<void> {
    if (this.busy || this.disabled) return; // a double click launches once
    if (!TARGETS.includes(this.target)) return;
    if (!this.signUrl) {
      this.#fail({ status: 0, message: "sign-url is required", errors: [] });
      return;
    }
    this.busy = true;
    this.failure = null;
    const target = this.target;
    this.#emit<LaunchStartDetail>("portal-launch-start", { target, parameters: this.parameters });
    // A tab must be opened inside the click, before any await, or popup blockers refuse it.
    let tab: Window | null = null;
    const tabName = `${this.#frameName}-tab`;
    if (target === "tab") {
      tab = globalThis.open("about:blank", tabName);
      if (!tab) {
        this.busy = false;
        this.#fail({
          status: 0,
          message: "The browser blocked the new tab. Allow pop-ups for this site and try again.",
          errors: [],
        });
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
          throw { status: 0, message: `Cannot reach ${this.signUrl}: ${err.message}`, errors: [] };
        }),
      );
      if (this.validate) {
        const body = new URLSearchParams({ signed_request: signed.signedRequest });
        await readValidateResponse(
          await fetch(`${signed.action}/validate`, { method: "POST", body }).catch((err) => {
            throw { status: 0, message: `Cannot reach the portal: ${err.message}`, errors: [] };
          }),
        );
      }
      this.#portalOrigin = new URL(signed.action, location.href).origin;
      if (target === "iframe") {
        this.framed = true;
        await this.updateComplete;
      }
      this.#submit(
        signed.action,
        signed.signedRequest,
        target === "self" ? "_self" : target === "tab" ? tabName : this.#frameName,
      );
      this.#emit<LaunchedDetail>("portal-launched", { target, action: signed.action });
    } catch (err) {
      tab?.close();
      this.#fail(toFailure(err));
    } finally {
      this.busy = false;
    }
  }

  #submit(action: string, signedRequest: string, formTarget: string): void {
    const form = document.createElement("form");
    form.method = "POST";
    form.action = action;
    form.target = formTarget;
    form.style.display = "none";
    const field = document.createElement("input");
    field.type = "hidden";
    field.name = "signed_request";
    field.value = signedRequest;
    form.append(field);
    // The form lives in the element's shadow root, so the iframe's name resolves next to it.
    this.renderRoot.appendChild(form);
    form.submit();
    form.remove();
  }

  #portalMessage(event: MessageEvent): void {
    if (!this.#portalOrigin || event.origin !== this.#portalOrigin) return;
    const data = event.data as Partial<LaunchErrorDetail> & { type?: string };
    if (!data || data.type !== MESSAGE_TYPES.error) return;
    this.#fail({
      status: typeof data.status === "number" ? data.status : 0,
      message: typeof data.message === "string" ? data.message : "The portal could not open",
      errors: Array.isArray(data.errors) ? data.errors : [],
    });
  }
}

function toFailure(err: unknown): LaunchErrorDetail {
  if (err && typeof err === "object" && "message" in err && "status" in err) {
    const e = err as LaunchErrorDetail;
    return { status: e.status, message: e.message, errors: e.errors ?? [] };
  }
  return { status: 0, message: String(err), errors: [] };
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
  }
}
