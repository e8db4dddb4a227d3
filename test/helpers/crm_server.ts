/**
 * A real HTTP server playing a CRM for callback tests: it verifies every callback with the
 * `standardwebhooks` npm package (what receivers use), answers what the test scripts (status,
 * headers, delay), serves an OAuth 2.0 token endpoint, and records everything it received.
 */
import { Webhook } from "standardwebhooks";

/** One received callback. */
export interface Received {
  at: number;
  method: string;
  path: string;
  headers: Record<string, string>;
  body: string;
  json: unknown;
  /** True when `standardwebhooks` verified it with one of the known secrets. */
  verified: boolean;
}

/** A scripted answer. */
export interface Answer {
  status: number;
  headers?: Record<string, string>;
  body?: string;
  /** Wait this long before answering (a slow or hung CRM). */
  delayMs?: number;
}

/** The mock CRM. */
export interface CrmServer {
  url: string;
  received: Received[];
  tokenRequests: { headers: Record<string, string>; body: string }[];
  /** Secrets verification tries (the app's callback secrets). */
  secrets: string[];
  /** Answers for the next callbacks, in order; then `fallback`. */
  script: Answer[];
  fallback: Answer;
  /** The access tokens the token endpoint hands out, and which ones the CRM accepts. */
  issued: string[];
  accepted: Set<string>;
  /** When set, callbacks must carry one of `accepted` as Bearer token (else 401). */
  requireToken: boolean;
  /** Waits until `n` callbacks arrived (or fails after `timeoutMs`). */
  waitFor(n: number, timeoutMs?: number): Promise<Received[]>;
  close(): Promise<void>;
}

/** Polls `check` every 20 ms until it returns a value other than undefined/false. */
export async function waitUntil<T>(
  check: () => Promise<T | undefined | false> | T | undefined | false,
  what: string,
  timeoutMs = 10_000,
): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value as T;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Starts the mock CRM on a free port of 127.0.0.1. */
export function startCrmServer(): CrmServer {
  const ac = new AbortController();
  const crm: CrmServer = {
    url: "",
    received: [],
    tokenRequests: [],
    secrets: [],
    script: [],
    fallback: { status: 200, body: '{"ok":true}' },
    issued: [],
    accepted: new Set(),
    requireToken: false,
    waitFor: (n, timeoutMs = 10_000) =>
      waitUntil(() => crm.received.length >= n && crm.received, `${n} callbacks`, timeoutMs),
    close: async () => {
      ac.abort();
      await server.finished;
    },
  };
  const server = Deno.serve({
    hostname: "127.0.0.1",
    port: 0,
    signal: ac.signal,
    onListen: () => {},
  }, async (req) => {
    const url = new URL(req.url);
    const body = await req.text();
    const headers = Object.fromEntries(req.headers);
    if (url.pathname === "/oauth/token") {
      crm.tokenRequests.push({ headers, body });
      const token = `tok-${crm.issued.length + 1}`;
      crm.issued.push(token);
      crm.accepted.add(token);
      return Response.json({ access_token: token, token_type: "Bearer", expires_in: 3600 });
    }
    let verified = false;
    for (const secret of crm.secrets) {
      try {
        new Webhook(secret).verify(body, headers);
        verified = true;
        break;
      } catch { /* try the next secret */ }
    }
    let json: unknown = null;
    try {
      json = JSON.parse(body);
    } catch { /* not JSON */ }
    crm.received.push({
      at: Date.now(),
      method: req.method,
      path: url.pathname + url.search,
      headers,
      body,
      json,
      verified,
    });
    if (crm.requireToken) {
      const token = headers.authorization?.replace(/^Bearer /, "");
      if (!token || !crm.accepted.has(token)) {
        return new Response('{"error":"invalid_token"}', { status: 401 });
      }
    }
    const answer = crm.script.shift() ?? crm.fallback;
    if (answer.delayMs) await new Promise((r) => setTimeout(r, answer.delayMs));
    return new Response(answer.body ?? "", {
      status: answer.status,
      headers: answer.headers,
    });
  });
  crm.url = `http://127.0.0.1:${server.addr.port}`;
  return crm;
}
