/**
 * The callbacks' HTTP client: HTTP/1.1 with keep-alive, connecting to the addresses the
 * destination check approved (destination.ts), so a name cannot resolve to a public address for
 * the check and to an internal one for the connection (DNS rebinding). TLS is verified against the
 * URL's host name, with Deno's root certificates (or `caCerts`). It costs a third of Deno's `fetch`
 * in CPU per delivery (docs/performance.md).
 *
 * - Idle connections are kept per origin and address list, `maxIdle` each, for `idleMs` (under the
 *   5 s that Node.js servers keep one), each with a read pending: one that brought anything while
 *   idle (the server closed it, or sent a stray answer) is dropped, so an answer is never read from
 *   the wrong request. A request is sent again on a new connection only when writing it to a kept
 *   one failed (the server cannot have read it whole), as Go's client does for a POST.
 * - A body's first `keep` bytes are answered (the delivery log's snippet); the rest, up to 1 MiB,
 *   is read so the connection can be reused; past that (or 64 KiB of chunk framing, or over 8
 *   interim answers) the connection is closed.
 * - TLS goes through node:tls (tls_conn.ts), whose socket closes when an attempt is abandoned
 *   mid-handshake. Requests carry a `User-Agent` and an `Accept` of any type unless their caller
 *   set them.
 * - No compression is asked for, no redirect followed. A request whose scheme has a proxy set
 *   (`proxied`, from the configuration) goes through `fetch`, which sends it through the proxy.
 */
import { ConnReader } from "./http1_reader.ts";
import { type ByteConn, connectTls } from "./tls_conn.ts";
import { alternateFamilies, closeQuietly, firstToConnect } from "./address_race.ts";
import { untilAborted } from "./timeout.ts";
import { RESPONSE_SNIPPET_BYTES } from "./contract.ts";
import { inClientSpan } from "../observability/tracing.ts";

/** What a request came to. */
export interface Answer {
  status: number;
  headers: Headers;
  /** The body's first bytes as text, or null when it was empty. */
  snippet: string | null;
}

/** One request. */
export interface SendOptions {
  method: string;
  headers: Record<string, string>;
  body: string;
  signal?: AbortSignal;
  /** Where to connect (raced, families alternating): checked addresses; null: the system's. */
  addresses: string[] | null;
  /** How many bytes of the body to answer (the client's `keep` when not given). */
  keep?: number;
}

interface Connection {
  conn: ByteConn;
  reader: ConnReader;
  idleSince: number;
}

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** What a field value may hold, as fetch allows it: no control character but tab, and Latin-1. */
const FIELD_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;
/** Set by the client itself. */
const OWN_FIELDS = new Set(["host", "content-length", "connection", "transfer-encoding"]);
/** Sent unless the caller set them (fetch sends both; some firewalls refuse a request without). */
const DEFAULT_FIELDS: [string, string][] = [
  ["User-Agent", "PortalLauncher-Callbacks/1"],
  ["Accept", "*/*"],
];

/** Writing a request failed: the server cannot have read it whole. */
class WriteFailed extends Error {
  constructor(override readonly cause: unknown) {
    super(cause instanceof Error ? cause.message : String(cause));
    this.name = cause instanceof Error ? cause.name : "Error";
  }
}
const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Keep-alive HTTP/1.1 to checked addresses. `close()` when done. */
export class CallbackHttpClient {
  #idle = new Map<string, Connection[]>();
  #closed = false;
  #sweep: ReturnType<typeof setTimeout> | undefined;
  readonly #idleMs: number;
  readonly #maxIdle: number;
  readonly #keep: number;

  constructor(
    private readonly options: {
      caCerts?: string[];
      /** URL schemes a proxy is set for: requests to them go through `fetch` and the proxy. */
      proxied?: string[];
      /** The `fetch` of proxied requests (tests stand in for it here). */
      fetch?: typeof fetch;
      /** Opens a plain TCP connection (tests stand in for the network here). */
      connectTcp?: (address: string, port: number, signal: AbortSignal) => Promise<ByteConn>;
      idleMs?: number;
      maxIdle?: number;
      keep?: number;
    } = {},
  ) {
    this.#idleMs = options.idleMs ?? 4_000;
    this.#maxIdle = options.maxIdle ?? 256;
    this.#keep = options.keep ?? RESPONSE_SNIPPET_BYTES;
  }

  /**
   * Sends one request and reads its answer; throws on a network, TLS or protocol failure. With
   * tracing on, in a client span whose `traceparent` the request carries (as fetch does).
   */
  async send(url: string, init: SendOptions): Promise<Answer> {
    const u = new URL(url);
    if (u.protocol !== "https:" && u.protocol !== "http:") {
      throw new TypeError(`${u.protocol} URLs are not sent`);
    }
    if (this.options.proxied?.includes(u.protocol)) return await this.#viaProxy(url, init);
    return await inClientSpan(init.method, u, async (traceHeaders) => {
      const headers = { ...init.headers, ...traceHeaders };
      const request = encodeRequest(u, { ...init, headers });
      init.signal?.throwIfAborted();
      const key = `${u.origin}|${init.addresses?.join(",") ?? ""}`;
      const idle = this.#takeIdle(key);
      if (idle) {
        try {
          return await this.#exchange(idle, key, request, init);
        } catch (err) {
          // The kept connection could not take the request: again on a new one.
          if (init.signal?.aborted || !(err instanceof WriteFailed)) throw unwrap(err);
        }
      }
      const fresh = await this.#connect(u, init.addresses, init.signal);
      return await this.#exchange(fresh, key, request, init).catch((err) => {
        throw unwrap(err);
      });
    });
  }

  /** Through `fetch`, which sends it through the scheme's proxy (and makes its span). */
  async #viaProxy(url: string, init: SendOptions): Promise<Answer> {
    const res = await (this.options.fetch ?? fetch)(url, {
      method: init.method,
      headers: init.headers,
      body: init.body,
      signal: init.signal,
      redirect: "manual",
    });
    return await answerOf(res, init.keep ?? this.#keep);
  }

  /** Closes the idle connections; the ones in use close when their request is done. */
  close(): void {
    this.#closed = true;
    clearTimeout(this.#sweep);
    for (const list of this.#idle.values()) for (const c of list) closeQuietly(c.conn);
    this.#idle.clear();
  }

  /** Idle connections kept now (for tests). */
  get idleCount(): number {
    let n = 0;
    for (const list of this.#idle.values()) n += list.length;
    return n;
  }

  async #exchange(
    c: Connection,
    key: string,
    request: Uint8Array,
    init: SendOptions,
  ): Promise<Answer> {
    const signal = init.signal;
    const onAbort = () => closeQuietly(c.conn);
    signal?.addEventListener("abort", onAbort, { once: true });
    c.conn.ref();
    try {
      let written = 0;
      try {
        while (written < request.length) written += await c.conn.write(request.subarray(written));
      } catch (err) {
        throw new WriteFailed(err);
      }
      const res = await c.reader.response(init.keep ?? this.#keep, init.method === "HEAD");
      if (res.reusable && !c.reader.buffered) this.#release(key, c);
      else closeQuietly(c.conn);
      return {
        status: res.status,
        headers: res.headers,
        snippet: res.body.length ? decoder.decode(res.body) : null,
      };
    } catch (err) {
      closeQuietly(c.conn);
      if (signal?.aborted) throw signal.reason;
      throw err;
    } finally {
      signal?.removeEventListener("abort", onAbort);
    }
  }

  /**
   * A new connection to the first address that answers (TLS verified against the URL's name), the
   * addresses raced as RFC 8305 does: the families alternate, each address starts when an earlier
   * one failed or NEXT_ADDRESS_AFTER_MS after the one before it started, and the first connected
   * (its TLS handshake done) wins; the others are aborted, their sockets closed. A host with one
   * dead address (packets dropped) is still reached, 250 ms later; one that is all dead fails with
   * the request's time.
   */
  async #connect(u: URL, addresses: string[] | null, signal?: AbortSignal): Promise<Connection> {
    const tls = u.protocol === "https:";
    const port = u.port ? Number(u.port) : tls ? 443 : 80;
    const name = u.hostname.replace(/^\[|\]$/g, "");
    const list = alternateFamilies(addresses ?? [name]);
    try {
      const conn = await firstToConnect(
        list,
        signal,
        (address, limit) =>
          tls
            ? connectTls(address, port, name, this.options.caCerts, limit)
            : untilAborted(this.#connectTcp(address, port, limit), limit, closeQuietly),
      );
      return { conn, reader: new ConnReader(conn), idleSince: 0 };
    } catch (err) {
      if (signal?.aborted) throw signal.reason;
      const reason = err instanceof Error ? err.message : String(err);
      throw new Error(`cannot connect to ${u.host}: ${reason}`);
    }
  }

  async #connectTcp(address: string, port: number, signal: AbortSignal): Promise<ByteConn> {
    if (this.options.connectTcp) return await this.options.connectTcp(address, port, signal);
    // The signal cancels the connect itself: an abandoned one keeps no socket.
    const conn = await Deno.connect({ hostname: address, port, signal });
    conn.setNoDelay(true);
    return conn;
  }

  #takeIdle(key: string): Connection | null {
    const list = this.#idle.get(key);
    const now = performance.now();
    for (let c = list?.pop(); c; c = list!.pop()) {
      // Still within its idle time, and nothing came while it waited.
      if (now - c.idleSince < this.#idleMs && c.reader.take()) return c;
      closeQuietly(c.conn);
    }
    return null;
  }

  #release(key: string, c: Connection): void {
    if (this.#closed) {
      closeQuietly(c.conn);
      return;
    }
    c.idleSince = performance.now();
    c.reader.watchIdle(() => closeQuietly(c.conn));
    c.conn.unref();
    let list = this.#idle.get(key);
    if (!list) this.#idle.set(key, list = []);
    list.push(c);
    if (list.length > this.#maxIdle) closeQuietly(list.shift()!.conn);
    if (this.#sweep === undefined) this.#scheduleSweep();
  }

  /** Closes the connections idle for `idleMs`; runs again while any is kept. */
  #sweepIdle(): void {
    this.#sweep = undefined;
    const now = performance.now();
    for (const [key, list] of this.#idle) {
      const kept = list.filter((c) =>
        now - c.idleSince < this.#idleMs && !c.reader.ended || closeQuietly(c.conn)
      );
      if (kept.length) this.#idle.set(key, kept);
      else this.#idle.delete(key);
    }
    if (this.#idle.size && !this.#closed) this.#scheduleSweep();
  }

  #scheduleSweep(): void {
    const timer = setTimeout(() => this.#sweepIdle(), this.#idleMs);
    Deno.unrefTimer(timer);
    this.#sweep = timer;
  }
}

/** A fetch Response as an Answer: its body's first `keep` bytes as text, the rest cancelled. */
async function answerOf(res: Response, keep: number): Promise<Answer> {
  const answer = { status: res.status, headers: res.headers, snippet: null as string | null };
  if (!res.body) return answer;
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (size < keep) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      size += value.length;
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) bytes.set(c, (at += c.length) - c.length);
  answer.snippet = decoder.decode(bytes.subarray(0, keep)) || null;
  return answer;
}

/** The request's bytes: its head (Latin-1, as fetch sends field values) and its UTF-8 body. */
export function encodeRequest(u: URL, init: SendOptions): Uint8Array {
  if (!TOKEN.test(init.method)) {
    throw new TypeError(`invalid method ${JSON.stringify(init.method)}`);
  }
  const body = encoder.encode(init.body);
  let head = `${init.method} ${u.pathname || "/"}${u.search} HTTP/1.1\r\nHost: ${u.host}\r\n`;
  const given = new Set<string>();
  for (const [name, value] of Object.entries(init.headers)) {
    if (!TOKEN.test(name)) throw new TypeError(`invalid header name ${JSON.stringify(name)}`);
    if (!FIELD_VALUE.test(value)) throw new TypeError(`invalid value in the ${name} header`);
    const lower = name.toLowerCase();
    given.add(lower);
    if (!OWN_FIELDS.has(lower)) head += `${name}: ${value}\r\n`;
  }
  for (const [name, value] of DEFAULT_FIELDS) {
    if (!given.has(name.toLowerCase())) head += `${name}: ${value}\r\n`;
  }
  head += `Content-Length: ${body.length}\r\n\r\n`;
  const out = new Uint8Array(head.length + body.length);
  for (let i = 0; i < head.length; i++) out[i] = head.charCodeAt(i);
  out.set(body, head.length);
  return out;
}

/** The error to answer: a failed write as what it was. */
function unwrap(err: unknown): unknown {
  return err instanceof WriteFailed ? err.cause : err;
}
