/**
 * A TCP forwarder a test puts between the service and PostgreSQL, to make database faults on
 * demand without touching the shared server: `cut()` closes every forwarded connection,
 * `refuse()` also stops listening (new connections are refused, as with a stopped server),
 * `blackhole()` accepts connections and forwards nothing (a host that vanished), `resume()`
 * forwards again on the same port.
 */

interface Pair {
  client: Deno.Conn;
  server: Deno.Conn | null;
}

/** A running proxy; `port` stays the same across refuse() and resume(). */
export class TcpProxy {
  readonly port: number;
  #listener: Deno.Listener | null;
  #pairs = new Set<Pair>();
  #mode: "forward" | "blackhole" = "forward";
  #loops: Promise<void>[] = [];

  private constructor(listener: Deno.Listener, readonly target: Deno.ConnectOptions) {
    this.#listener = listener;
    this.port = (listener.addr as Deno.NetAddr).port;
    this.#loops.push(this.#accept(listener));
  }

  /** Starts a proxy on a free loopback port that forwards to `target`. */
  static start(target: Deno.ConnectOptions): TcpProxy {
    return new TcpProxy(Deno.listen({ hostname: "127.0.0.1", port: 0 }), target);
  }

  /** `url` (a postgres:// URL) with its host and port replaced by the proxy's. */
  url(url: string): string {
    const u = new URL(url);
    u.hostname = "127.0.0.1";
    u.port = String(this.port);
    return u.href;
  }

  /** Connections being forwarded now. */
  get connections(): number {
    return this.#pairs.size;
  }

  async #accept(listener: Deno.Listener): Promise<void> {
    try {
      for await (const client of listener) this.#open(client);
    } catch { /* listener closed */ }
  }

  async #open(client: Deno.Conn): Promise<void> {
    const pair: Pair = { client, server: null };
    this.#pairs.add(pair);
    if (this.#mode === "blackhole") return; // held open, nothing forwarded, until cut()
    try {
      pair.server = await Deno.connect(this.target);
    } catch {
      this.#close(pair);
      return;
    }
    if (!this.#pairs.has(pair)) { // cut while connecting
      pair.server.close();
      return;
    }
    const up = this.#pipe(client, pair.server);
    const down = this.#pipe(pair.server, client);
    await Promise.race([up, down]);
    this.#close(pair);
  }

  async #pipe(from: Deno.Conn, to: Deno.Conn): Promise<void> {
    const buf = new Uint8Array(64 * 1024);
    try {
      for (;;) {
        const n = await from.read(buf);
        if (n === null) return;
        if (this.#mode === "blackhole") continue; // swallowed
        let rest = buf.subarray(0, n);
        while (rest.length) rest = rest.subarray(await to.write(rest));
      }
    } catch { /* closed by cut() or by the other side */ }
  }

  #close(pair: Pair): void {
    if (!this.#pairs.delete(pair)) return;
    for (const conn of [pair.client, pair.server]) {
      try {
        conn?.close();
      } catch { /* already closed */ }
    }
  }

  /** Closes every forwarded connection at once (both sides); new ones are still accepted. */
  cut(): void {
    for (const pair of [...this.#pairs]) this.#close(pair);
  }

  /** A stopped server: existing connections are cut and new ones refused (ECONNREFUSED). */
  refuse(): void {
    this.#listener?.close();
    this.#listener = null;
    this.cut();
  }

  /** A vanished host: connections stay open but nothing is forwarded either way. */
  blackhole(): void {
    this.#mode = "blackhole";
  }

  /** Forwards again (listening again on the same port after refuse()). */
  resume(): void {
    this.cut(); // blackholed connections are dropped: their clients reconnect
    this.#mode = "forward";
    if (!this.#listener) {
      this.#listener = Deno.listen({ hostname: "127.0.0.1", port: this.port });
      this.#loops.push(this.#accept(this.#listener));
    }
  }

  /** Stops the proxy and closes every connection. */
  async close(): Promise<void> {
    this.#listener?.close();
    this.#listener = null;
    this.cut();
    await Promise.all(this.#loops);
  }
}
