// Shared by the two sides of screen sharing (server/remote/remote_pages.tsx): the page's settings,
// the signaling socket with reconnect and catch-up, the ICE configuration, the chat box.

/** The page's settings from <meta name="remote-config">. */
export function settings() {
  const meta = document.querySelector('meta[name="remote-config"]');
  return JSON.parse(meta?.getAttribute("content") ?? "{}");
}

/** The ICE configuration (`{iceServers, iceTransportPolicy}`) for this side. */
export async function iceConfiguration(cfg) {
  const res = await fetch(cfg.ice, { credentials: "same-origin" });
  if (!res.ok) throw new Error(`ICE configuration: HTTP ${res.status}`);
  return await res.json();
}

/**
 * The signaling socket: `onMessage(from, msg)` for each relayed message, `onStatus(open)` when it
 * opens or drops. A dropped socket reconnects and reads what it missed (`after` = last id). What is
 * sent while the socket is not open (still connecting, or reconnecting) waits, in order, and goes
 * once the service has welcomed the socket: a consent ticked before the socket opened is recorded.
 */
/** Messages kept while the socket is not open; past this many, more are dropped. */
const MAX_WAITING = 200;

export class Signaling {
  constructor(cfg, onMessage, onStatus) {
    this.cfg = cfg;
    this.onMessage = onMessage;
    this.onStatus = onStatus;
    this.lastId = null;
    this.ended = false;
    this.ws = null;
    this.delay = 500;
    this.refusals = 0;
    this.waiting = [];
  }

  connect() {
    const url = new URL(this.cfg.ws, location.href);
    url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
    if (this.lastId !== null) url.searchParams.set("after", String(this.lastId));
    const ws = new WebSocket(url);
    this.ws = ws;
    let opened = false;
    ws.onopen = () => {
      opened = true;
      this.delay = 500;
      this.refusals = 0;
    };
    ws.onmessage = (event) => {
      let m;
      try {
        m = JSON.parse(event.data);
      } catch {
        return;
      }
      if (m.type === "welcome") {
        if (this.lastId === null) this.lastId = m.lastId;
        this.onStatus(true, m);
        for (const waiting of this.waiting.splice(0)) ws.send(JSON.stringify(waiting));
        return;
      }
      if (m.type === "error") {
        console.warn("signaling:", m.code, m.message);
        return;
      }
      if (typeof m.id === "number") this.lastId = Math.max(this.lastId ?? 0, m.id);
      this.onMessage(m.from, m.msg);
    };
    ws.onclose = (event) => {
      if (this.ws !== ws) return;
      // Refused before opening three times running (ended, expired, another device): give up.
      if (!opened) this.refusals += 1;
      const gaveUp = this.refusals >= 3;
      this.onStatus(false, { code: event.code, reason: event.reason, gaveUp });
      if (this.ended || gaveUp || event.code === 1000) return;
      setTimeout(() => this.connect(), this.delay);
      this.delay = Math.min(this.delay * 2, 8000);
    };
  }

  send(message) {
    if (this.ws?.readyState === WebSocket.OPEN && this.waiting.length === 0) {
      this.ws.send(JSON.stringify(message));
    } else if (!this.ended && this.waiting.length < MAX_WAITING) {
      this.waiting.push(message);
    }
  }

  close() {
    this.ended = true;
    this.ws?.close(1000, "done");
  }
}

/** The chat box: `send(text)` is called for typed messages; `show(who, text)` adds a line. */
export function chatBox(send) {
  const form = document.getElementById("chat-form");
  const input = document.getElementById("chat-input");
  const button = document.getElementById("chat-send");
  const log = document.getElementById("chat-log");
  form?.addEventListener("submit", (event) => {
    event.preventDefault();
    const text = input.value.trim();
    if (!text || !send(text)) return;
    show(document.documentElement.lang === "en" ? "You" : "•", text, true);
    input.value = "";
  });
  function show(who, text, mine = false) {
    const li = document.createElement("li");
    li.className = mine ? "mine" : "theirs";
    const b = document.createElement("b");
    b.textContent = `${who}: `;
    li.append(b, document.createTextNode(text));
    log.append(li);
    log.scrollTop = log.scrollHeight;
  }
  return {
    show,
    enable(on) {
      if (button) button.disabled = !on;
    },
  };
}

/** A function sending JSON on the data channel `get()` answers: false unless it is open. */
export function dataSender(get) {
  return (message) => {
    const channel = get();
    if (channel?.readyState !== "open") return false;
    channel.send(JSON.stringify(message));
    return true;
  };
}

/** Shows a connection state in #state and on <body data-rtc>. */
export function showState(text, rtc) {
  const state = document.getElementById("state");
  if (state) state.textContent = text;
  if (rtc) document.body.dataset.rtc = rtc;
}
