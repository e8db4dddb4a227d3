/**
 * Screen sharing, signaling fan-out: `pairs` remote sessions, each with its agent's socket on
 * service process A and its customer's socket on process B (one PostgreSQL database), so every
 * message crosses between processes through the relay's rows and NOTIFY. Setup: one launch per
 * remote session on A (a new case: its session, and the agent's portal login cookie, as the
 * launch sets it), an invitation by the REST API (POST /api/v1/sessions/{id}/remote), the join
 * link opened on B (GET /r/<token>: the device cookie), then both sockets with their cookie and
 * the service's Origin (the agent's with `?csrf=`, derived from the login token as the portal
 * does). Each socket then sends `candidate` messages at `rate` per second (random phases), the
 * send time in microseconds of this process's clock in the candidate's foundation
 * (`candidate:<µs> 1 udp 1 127.0.0.1 9 typ host`), and the other side's socket times each
 * arrival. The first `warmUpMs` are not counted.
 */
import { SIGNED_REQUEST_FIELD } from "../../server/launch/contract.ts";
import { sha256 } from "../../server/crypto/hashing.ts";
import { signLaunch } from "../../test/helpers/launch.ts";
import { launchPayload } from "../../test/helpers/payload.ts";
import { quantile } from "./browser.ts";

/** What the fan-out measured. */
export interface FanOutResult {
  sockets: number;
  /** Messages sent and received in the counted window, and received per second. */
  sent: number;
  received: number;
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  /** Refusals or closes a socket got (should be none). */
  errors: number;
}

const now = () => Math.round((performance.timeOrigin + performance.now()) * 1000);

function cookieOf(res: Response, name: string): string {
  const found = res.headers.getSetCookie().map((c) => c.split(";")[0]).find((c) =>
    c.startsWith(`${name}=`)
  );
  if (!found) throw new Error(`no ${name} cookie (status ${res.status})`);
  return found;
}

/** The two sockets' URLs and cookies of one remote session. */
export interface Pair {
  agentUrl: string;
  agentCookie: string;
  customerUrl: string;
  customerCookie: string;
}

/** One remote session: launched on `a`, invited by the API, its link opened on `b`. */
export async function preparePair(
  a: string,
  b: string,
  app: { appName: string; apiKey: string },
  token: string,
  n: string,
): Promise<Pair> {
  const signed = await signLaunch(
    launchPayload({ referenceNumber: `FO-${n}`, contactId: `FO${n}` }, {
      id: `fanout-${n}`,
      email: `fanout-${n}@bench.example.com`,
    }),
    app.apiKey,
  );
  const launch = await fetch(`${a}/portal/api/auth/app/${app.appName}`, {
    method: "POST",
    headers: { Accept: "text/html" },
    body: new URLSearchParams({ [SIGNED_REQUEST_FIELD]: signed }),
    redirect: "manual",
  });
  await launch.body?.cancel();
  const login = cookieOf(launch, "portal_login");
  const sessionId = launch.headers.get("Location")?.match(/\/sessions\/(\d+)/)?.[1];
  if (!sessionId) throw new Error(`launch ${n}: ${launch.status}, no session`);
  const invited = await fetch(`${a}/api/v1/sessions/${sessionId}/remote`, {
    method: "POST",
    headers: { Authorization: `Bearer ${token}` },
  });
  const invitation = await invited.json();
  if (invited.status !== 201) throw new Error(`invite: ${JSON.stringify(invitation)}`);
  const joinToken = new URL(invitation.joinUrl).pathname.split("/").pop()!;
  const page = await fetch(`${b}/portal/r/${joinToken}`);
  await page.body?.cancel();
  const csrf = sha256(`csrf:${login.slice("portal_login=".length)}`).slice(0, 32);
  return {
    agentUrl: `${a.replace("http", "ws")}/portal/remote/${invitation.id}/ws?csrf=${csrf}`,
    agentCookie: login,
    customerUrl: `${b.replace("http", "ws")}/portal/r/${joinToken}/ws`,
    customerCookie: cookieOf(page, "remote_device"),
  };
}

/** Opens a signaling socket; resolves at its welcome. */
export function open(url: string, cookie: string, origin: string): Promise<WebSocket> {
  // Deno's WebSocket takes request headers (not in the DOM's types).
  const Ws = WebSocket as unknown as new (url: string, o: unknown) => WebSocket;
  const ws = new Ws(url, { headers: { Cookie: cookie, Origin: origin } });
  return new Promise((resolve, reject) => {
    ws.onmessage = (e) => {
      if (String(e.data).includes('"type":"welcome"')) resolve(ws);
    };
    ws.onerror = () => reject(new Error(`socket ${url.split("?")[0]} failed`));
    ws.onclose = (e) => reject(new Error(`socket closed: ${e.code} ${e.reason}`));
  });
}

/** Runs the fan-out against processes `a` and `b` (admin `token` of the shared database). */
export async function fanOut(
  a: string,
  b: string,
  token: string,
  o: { pairs: number; rate: number; seconds: number; warmUpMs: number },
): Promise<FanOutResult> {
  const res = await fetch(`${a}/api/v1/admin/apps`, {
    method: "POST",
    headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
    body: JSON.stringify({ appName: "fanout", name: "Fan-out", authType: "signed_request" }),
  });
  const app = await res.json();
  if (res.status !== 201) throw new Error(`fan-out app: ${JSON.stringify(app)}`);
  const stamp = Date.now();
  const pairs: Pair[] = [];
  for (let i = 0; i < o.pairs; i += 10) {
    const batch = Array.from({ length: Math.min(10, o.pairs - i) }, (_, k) => `${stamp}-${i + k}`);
    pairs.push(...await Promise.all(batch.map((n) => preparePair(a, b, app, token, n))));
  }
  const sockets: WebSocket[] = [];
  let counting = false;
  let errors = 0;
  let sent = 0;
  const latencies: number[] = [];
  const listen = (ws: WebSocket) => {
    ws.onmessage = (e) => {
      const m = JSON.parse(String(e.data));
      if (m.type === "error") errors++;
      const line = m.msg?.candidate?.candidate;
      if (typeof line !== "string") return;
      const at = Number(line.slice("candidate:".length).split(" ")[0]);
      if (counting && at >= countFrom) latencies.push((now() - at) / 1000);
    };
    ws.onclose = () => {
      if (!stopping) errors++;
    };
  };
  let stopping = false;
  let countFrom = Infinity;
  try {
    for (let i = 0; i < pairs.length; i += 25) {
      const batch = pairs.slice(i, i + 25);
      const opened = await Promise.all(batch.flatMap((p) => [
        open(p.agentUrl, p.agentCookie, a),
        open(p.customerUrl, p.customerCookie, b),
      ]));
      sockets.push(...opened);
    }
    for (const ws of sockets) listen(ws);
    const timers: ReturnType<typeof setTimeout>[] = [];
    const period = 1000 / o.rate;
    for (const ws of sockets) {
      const send = () => {
        const at = now();
        ws.send(JSON.stringify({
          type: "candidate",
          candidate: {
            candidate: `candidate:${at} 1 udp 1 127.0.0.1 9 typ host`,
            sdpMLineIndex: 0,
          },
        }));
        if (counting && at >= countFrom) sent++;
      };
      timers.push(setTimeout(() => timers.push(setInterval(send, period)), Math.random() * period));
    }
    await new Promise((r) => setTimeout(r, o.warmUpMs));
    counting = true;
    countFrom = now();
    const started = performance.now();
    await new Promise((r) => setTimeout(r, o.seconds * 1000));
    const seconds = (performance.now() - started) / 1000;
    for (const t of timers) clearInterval(t);
    // Let what is on its way arrive (at most 2 s), then count only what was sent in the window.
    await new Promise((r) => setTimeout(r, 2000));
    counting = false;
    const sorted = latencies.sort((x, y) => x - y);
    return {
      sockets: sockets.length,
      sent,
      received: sorted.length,
      perSecond: sorted.length / seconds,
      p50Ms: quantile(sorted, 0.5),
      p99Ms: quantile(sorted, 0.99),
      maxMs: sorted[sorted.length - 1] ?? NaN,
      errors,
    };
  } finally {
    stopping = true;
    for (const ws of sockets) ws.close();
  }
}
