/// <reference lib="dom" />
/**
 * The portal pages' side of the host message protocol (server/launch/host_messages.ts), built by
 * `deno task build` into widget/dist/portal-bridge.js and loaded by the session screen, the path
 * runner and the remote view. It reads its settings from `<meta name="portal-launcher-bridge">`
 * (the launch's exact allowed origins, the session, the launch, the flavor, the change just made)
 * and posts, to the window that framed or opened the portal and only to those origins:
 * `ready` once the session screen is shown, `session` after the agent changed the session, and
 * `resize` whenever the page's content height changes (ResizeObserver, at most every 100 ms).
 * It also moves the keyboard focus to the page's heading, so a keyboard user lands on it.
 */
import {
  type HostMessage,
  hostMessage,
  SESSION_CHANGES,
  type SessionChange,
} from "../launch/host_messages.ts";
import { BRIDGE_META, type BridgeSettings } from "./bridge_settings.ts";

function settings(): BridgeSettings | null {
  const meta = document.querySelector<HTMLMetaElement>(`meta[name="${BRIDGE_META}"]`);
  try {
    return meta ? JSON.parse(meta.content) : null;
  } catch {
    return null;
  }
}

function start(s: BridgeSettings): void {
  const heading = document.querySelector<HTMLElement>("main h1");
  if (heading) {
    heading.tabIndex = -1;
    heading.focus({ preventScroll: true });
  }
  const host: Window | null = globalThis.parent !== globalThis.window
    ? globalThis.parent
    : globalThis.opener;
  if (!host || !s.origins.length) return;
  const post = (message: HostMessage) => {
    for (const origin of s.origins) {
      try {
        host.postMessage(message, origin);
      } catch { /* a closed opener */ }
    }
  };
  if (s.screen && s.sessionId) {
    post(hostMessage.ready({ sessionId: s.sessionId, launchId: s.launchId, flavor: s.flavor }));
  }
  if (s.sessionId && SESSION_CHANGES.includes(s.change as SessionChange)) {
    post(hostMessage.session({ sessionId: s.sessionId, event: s.change as SessionChange }));
    // A reload must not announce the change again.
    const url = new URL(location.href);
    url.searchParams.delete("change");
    history.replaceState(history.state, "", url);
  }
  let last = -1;
  let timer: ReturnType<typeof setTimeout> | null = null;
  const measure = () => {
    timer = null;
    const height = Math.ceil(document.documentElement.getBoundingClientRect().height);
    if (height !== last) {
      last = height;
      post(hostMessage.resize(height));
    }
  };
  new ResizeObserver(() => {
    timer ??= setTimeout(measure, last < 0 ? 0 : 100);
  }).observe(document.documentElement);
}

const found = settings();
if (found) start(found);
