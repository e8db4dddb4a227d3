/**
 * Remote-support fixture over real HTTP: a service, an agent landed by a launch with
 * `paths.remote` (its login cookie and CSRF token, the invitation the landing opened), and
 * WebSocket clients for either side that queue what they receive.
 */
import assert from "node:assert/strict";
import type { Backend } from "../../helpers/db.ts";
import { type HttpTestService, startHttpService } from "../../helpers/http_service.ts";
import { createTestApp, signLaunch, type TestApp } from "../../helpers/launch.ts";
import { launchPayload } from "../../helpers/payload.ts";

/** An agent landed in the remote view, with what its page shows. */
export interface LandedAgent {
  cookie: string;
  csrf: string;
  sessionId: number;
  remoteId: number;
  joinUrl: string;
  token: string;
  code: string;
  page: string;
}

function unescape(text: string): string {
  return text.replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&amp;/g, "&");
}

/** Launches `user` with paths.remote and follows the landing to the remote view. */
export async function landAgent(
  svc: HttpTestService,
  app: TestApp,
  user: Record<string, string> = {},
  params: Record<string, unknown> = {},
): Promise<LandedAgent> {
  const signed = await signLaunch(
    launchPayload({ paths: { search: [], remote: true }, ...params }, user),
    app.apiKey,
  );
  const res = await fetch(`${svc.base}/portal/api/auth/app/${app.appName}`, {
    method: "POST",
    body: new URLSearchParams({ signed_request: signed }),
    headers: { Accept: "application/json" },
  });
  assert.equal(res.status, 200, await res.clone().text());
  const cookie = res.headers.getSetCookie().map((c) => c.split(";")[0]).join("; ");
  const { redirectUrl } = await res.json();
  const landing = await fetch(redirectUrl, { headers: { Cookie: cookie }, redirect: "manual" });
  assert.equal(landing.status, 303);
  const location = new URL(landing.headers.get("Location")!, svc.base).href;
  await landing.body?.cancel();
  const page = await (await fetch(location, { headers: { Cookie: cookie } })).text();
  const csrf = page.match(/name="csrf-token" content="([^"]+)"/)![1];
  const config = JSON.parse(unescape(page.match(/name="remote-config" content="([^"]+)"/)![1]));
  const joinUrl = unescape(
    page.match(/id="join-url" readonly="" value="([^"]+)"/)?.[1] ??
      page.match(/id="join-url"[^>]*value="([^"]+)"/)![1],
  );
  const code = page.match(/data-testid="remote-code">([\d ]+)</)![1].replace(/\s/g, "");
  return {
    cookie,
    csrf,
    sessionId: Number(new URL(location).pathname.split("/")[3]),
    remoteId: Number(config.ws.match(/\/remote\/(\d+)\/ws/)[1]),
    joinUrl,
    token: joinUrl.split("/").pop()!,
    code,
    page,
  };
}

/** A service with an app, for remote tests. */
export async function remoteService(
  backend: Backend,
  env: Record<string, string> = {},
): Promise<{ svc: HttpTestService; admin: string; app: TestApp }> {
  const svc = await startHttpService(backend, env);
  const admin = await svc.adminToken();
  const app = await createTestApp(svc, admin);
  return { svc, admin, app };
}

/** The device cookie a customer's browser gets from the join page. */
export async function customerCookie(joinUrl: string): Promise<string> {
  const res = await fetch(joinUrl);
  await res.body?.cancel();
  return res.headers.getSetCookie().map((c) => c.split(";")[0]).join("; ");
}

// deno-lint-ignore no-explicit-any
type Json = any;

/** A signaling client that queues messages; `next` waits for one matching `match`. */
export class Client {
  readonly queue: Json[] = [];
  /** The last relayed message id received (what a reconnect passes as `after`). */
  lastId = 0;
  #waiters: (() => void)[] = [];
  closed: Promise<CloseEvent>;
  opened: Promise<void>;

  constructor(readonly ws: WebSocket) {
    this.opened = new Promise((resolve, reject) => {
      ws.onopen = () => resolve();
      ws.onerror = () => reject(new Error("socket refused"));
    });
    this.closed = new Promise((resolve) => {
      ws.onclose = (e) => {
        resolve(e);
        for (const w of this.#waiters.splice(0)) w();
      };
    });
    this.opened.catch(() => {}); // a refused upgrade is asserted through `closed`
    ws.onmessage = (e) => {
      const m = JSON.parse(e.data);
      if (typeof m.id === "number") this.lastId = Math.max(this.lastId, m.id);
      this.queue.push(m);
      for (const w of this.#waiters.splice(0)) w();
    };
  }

  send(message: unknown): void {
    this.ws.send(typeof message === "string" ? message : JSON.stringify(message));
  }

  /** The first queued message matching `match` (removed from the queue); waits up to 5 s. */
  async next(match: (m: Json) => boolean, timeoutMs = 5_000): Promise<Json> {
    const deadline = Date.now() + timeoutMs;
    while (true) {
      const i = this.queue.findIndex(match);
      if (i >= 0) return this.queue.splice(i, 1)[0];
      if (Date.now() > deadline || this.ws.readyState === WebSocket.CLOSED) {
        throw new Error(`no matching message; got ${JSON.stringify(this.queue)}`);
      }
      await new Promise<void>((resolve) => {
        this.#waiters.push(resolve);
        setTimeout(resolve, 100);
      });
    }
  }

  close(): void {
    this.ws.close();
  }
}

/** Opens a socket at `url` with `headers` (Origin, Cookie). */
export function socket(url: string, headers: Record<string, string>): Client {
  // @ts-ignore: Deno's WebSocket takes headers in its options.
  return new Client(new WebSocket(url.replace(/^http/, "ws"), { headers }));
}

/** The agent's socket of `agent` on `svc`. */
export function agentSocket(svc: HttpTestService, agent: LandedAgent, extra = ""): Client {
  return socket(`${svc.base}/portal/remote/${agent.remoteId}/ws?csrf=${agent.csrf}${extra}`, {
    Origin: svc.base,
    Cookie: agent.cookie,
  });
}

/** The customer's socket of the invitation of `agent`, with device cookie `cookie`. */
export function customerSocket(
  svc: HttpTestService,
  agent: LandedAgent,
  cookie: string,
  extra = "",
): Client {
  return socket(`${agent.joinUrl}/ws${extra}`, { Origin: svc.base, Cookie: cookie });
}
