/**
 * The PostgreSQL driver's connection on Deno's own sockets (`Deno.connect`) instead of the
 * `node:net` compatibility layer. The driver (postgres.js) accepts any socket that behaves like
 * `net.Socket` for what it uses: `write(chunk, callback)`, `end(chunk)`, `destroy()`,
 * `setKeepAlive()`, `readyState`, and the `data`, `error`, `close` and `drain` events.
 *
 * Why: reading a large result through `node:net` copies every chunk the socket delivers into a
 * new buffer. Here chunks are read into 128 KB slabs and handed to the driver as views, a new slab
 * starting only when the current one is nearly full (a slab is never written twice, so a view
 * the driver keeps stays valid). In the bench, the REST list of 50 sessions (about 60 KB a page)
 * raised the server's peak memory by 14 MB instead of 33, at the same rates (docs/performance.md).
 *
 * Used for plain connections to one host (TCP or a Unix socket directory); TLS (`sslmode`,
 * `PGSSL`) and multi-host URLs keep the driver's own `node:net` / `node:tls` sockets
 * (`usesDenoSocket`).
 */
import { EventEmitter } from "node:events";
import { Buffer } from "node:buffer";

const SLAB_BYTES = 128 * 1024;
/** A read gets at least this much room; below it, the next read starts a new slab. */
const MIN_READ_BYTES = 16 * 1024;

/** The connection fields of the driver's parsed options that the socket needs. */
export interface SocketTarget {
  host: string[];
  port: number[];
  path?: string | false;
  ssl?: unknown;
}

/**
 * True when `databaseUrl` asks for a plain connection to one host: no TLS from the URL's
 * `sslmode` or `ssl`, nor from `PGSSL` (the variable the driver reads when the URL says nothing).
 */
export function usesDenoSocket(databaseUrl: string, env: { PGSSL?: string } = {}): boolean {
  let url: URL;
  try {
    url = new URL(databaseUrl);
  } catch {
    return false; // multi-host URLs (host1,host2) are not URLs: the driver parses them itself
  }
  if (url.hostname.includes(",")) return false;
  const plain = (v: string | null | undefined) => !v || v === "disable" || v === "false";
  const asked = url.searchParams.get("sslmode") ?? url.searchParams.get("ssl");
  return asked !== null ? plain(asked) : plain(env.PGSSL);
}

/** A `net.Socket` look-alike on a `Deno.Conn`, connecting as soon as it is created. */
export class DenoSocket extends EventEmitter {
  readyState: "opening" | "open" | "closed" = "opening";
  readonly host: string;
  readonly port: number;
  #conn: Deno.Conn | undefined;
  #pending: Uint8Array[] = [];
  #callbacks: (() => void)[] = [];
  #writing = false;
  #slab = new Uint8Array(SLAB_BYTES);
  #used = 0;
  #keepAlive = false;

  /** The socket the driver asks for (its `socket` option): connects to the first host. */
  static open(target: SocketTarget): DenoSocket {
    return new DenoSocket(target);
  }

  private constructor(target: SocketTarget) {
    super();
    this.host = target.path || target.host[0];
    this.port = target.port[0];
    if (target.ssl) {
      this.#fail(new Error("DenoSocket has no TLS: connect with the driver's own sockets"));
      return;
    }
    const connecting = target.path
      ? Deno.connect({ transport: "unix", path: target.path })
      : Deno.connect({ hostname: target.host[0], port: target.port[0] });
    connecting.then((conn) => this.#opened(conn), (err) => this.#fail(err));
  }

  #opened(conn: Deno.Conn): void {
    if (this.readyState === "closed") { // destroyed while connecting (connect timeout)
      conn.close();
      return;
    }
    this.#conn = conn;
    this.readyState = "open";
    if ("setNoDelay" in conn) {
      (conn as Deno.TcpConn).setNoDelay(true);
      (conn as Deno.TcpConn).setKeepAlive(this.#keepAlive);
    }
    this.#readLoop();
    if (this.#pending.length) this.#flush();
  }

  async #readLoop(): Promise<void> {
    const conn = this.#conn!;
    try {
      while (this.readyState === "open") {
        if (SLAB_BYTES - this.#used < MIN_READ_BYTES) {
          this.#slab = new Uint8Array(SLAB_BYTES);
          this.#used = 0;
        }
        const n = await conn.read(this.#slab.subarray(this.#used));
        if (n === null) break; // the server closed the connection
        const chunk = Buffer.from(this.#slab.buffer, this.#used, n);
        this.#used += n;
        this.emit("data", chunk);
      }
      this.#close(false);
    } catch (err) {
      this.#fail(err);
    }
  }

  /** Queues `chunk`; `callback` runs once it has been handed to the kernel. */
  write(chunk: Uint8Array, callback?: () => void): boolean {
    if (this.readyState === "closed") return false;
    this.#pending.push(chunk);
    if (callback) this.#callbacks.push(callback);
    if (this.readyState === "open" && !this.#writing) this.#flush();
    return true;
  }

  async #flush(): Promise<void> {
    this.#writing = true;
    try {
      while (this.#pending.length && this.readyState === "open") {
        const parts = this.#pending;
        const callbacks = this.#callbacks;
        this.#pending = [];
        this.#callbacks = [];
        let bytes = parts.length === 1 ? parts[0] : Buffer.concat(parts);
        while (bytes.length) bytes = bytes.subarray(await this.#conn!.write(bytes));
        for (const callback of callbacks) callback();
      }
    } catch (err) {
      this.#fail(err);
    } finally {
      this.#writing = false;
    }
  }

  /**
   * TCP keep-alive on (the driver asks for it before the connection is up: applied then). Deno
   * sockets cannot set the idle time the driver passes (60 s): the system's applies.
   */
  setKeepAlive(enable = false): this {
    this.#keepAlive = enable;
    if (this.#conn && "setKeepAlive" in this.#conn) {
      (this.#conn as Deno.TcpConn).setKeepAlive(enable);
    }
    return this;
  }

  /** Sends `chunk` (the driver's Terminate message), then closes. */
  end(chunk?: Uint8Array): this {
    if (chunk && this.readyState === "open") this.write(chunk, () => this.destroy());
    else this.destroy();
    return this;
  }

  destroy(): this {
    this.#close(false);
    return this;
  }

  #fail(err: unknown): void {
    this.#close(true, err);
  }

  /**
   * Closes at once; `error` (if any) and `close` are emitted on a later task, as `net.Socket`
   * does: the driver may still be setting the socket up when a connection fails.
   */
  #close(hadError: boolean, err?: unknown): void {
    if (this.readyState === "closed") return; // a read or write cut short by our own close
    this.readyState = "closed";
    try {
      this.#conn?.close();
    } catch { /* already closed by the peer */ }
    this.#pending = [];
    this.#callbacks = [];
    setTimeout(() => {
      if (hadError && this.listenerCount("error") > 0) this.emit("error", err);
      this.emit("close", hadError);
    }, 0);
  }
}

/**
 * The driver option that makes it use `DenoSocket`: `socket` is documented in postgres.js's
 * README ("Custom socket") but missing from its type declarations, hence the empty type.
 */
export const denoSocketOption: Record<never, never> = { socket: DenoSocket.open };
