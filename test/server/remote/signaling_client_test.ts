/**
 * The pages' signaling socket (server/assets/files/remote-common.js `Signaling`), with a stand-in
 * WebSocket: what a page sends before its socket is open or welcomed waits and goes, in order,
 * once the service welcomed it; nothing is dropped silently (a consent ticked while the socket was
 * still connecting was lost before, and the service never recorded it).
 */
import assert from "node:assert/strict";

class FakeSocket {
  static OPEN = 1;
  static made: FakeSocket[] = [];
  readyState = 0;
  sent: string[] = [];
  onopen: (() => void) | null = null;
  onmessage: ((event: { data: string }) => void) | null = null;
  onclose: ((event: { code: number; reason: string }) => void) | null = null;
  constructor(readonly url: URL) {
    FakeSocket.made.push(this);
  }
  send(data: string) {
    this.sent.push(data);
  }
  close() {}
  open() {
    this.readyState = FakeSocket.OPEN;
    this.onopen?.();
  }
  welcome() {
    this.onmessage?.({ data: JSON.stringify({ type: "welcome", side: "customer", lastId: 0 }) });
  }
}

Deno.test("signaling page socket: messages sent before the welcome wait and go in order", async () => {
  const saved = { WebSocket: globalThis.WebSocket, location: globalThis.location };
  Object.defineProperty(globalThis, "WebSocket", { value: FakeSocket, configurable: true });
  Object.defineProperty(globalThis, "location", {
    value: { href: "http://portal.test/remote/1" },
    configurable: true,
  });
  try {
    const { Signaling } = await import("../../../server/assets/files/remote-common.js");
    const signal = new Signaling({ ws: "/remote/1/ws" }, () => {}, () => {});
    signal.connect();
    const ws = FakeSocket.made.at(-1)!;
    signal.send({ type: "consent" });
    assert.deepEqual(ws.sent, [], "nothing goes while the socket is connecting");
    ws.open();
    signal.send({ type: "sharing", on: true });
    assert.deepEqual(ws.sent, [], "open but not yet welcomed: still waiting, behind the consent");
    ws.welcome();
    signal.send({ type: "sharing", on: false });
    assert.deepEqual(ws.sent.map((m) => JSON.parse(m)), [
      { type: "consent" },
      { type: "sharing", on: true },
      { type: "sharing", on: false },
    ]);
  } finally {
    Object.defineProperty(globalThis, "WebSocket", { value: saved.WebSocket, configurable: true });
    Object.defineProperty(globalThis, "location", { value: saved.location, configurable: true });
  }
});
