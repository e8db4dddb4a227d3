/**
 * TLS for the callbacks' HTTP client through `node:tls`, read and written like a `Deno.Conn`. Not
 * `Deno.startTls`: closing a `Deno.TlsConn` whose handshake has not finished (a timeout, a
 * shutdown) leaves its socket open until the server ends the handshake, which a hostile server
 * never does, so each abandoned attempt kept a file descriptor; a destroyed `node:tls` socket is
 * closed at once. The certificate is checked against `name` (the URL's host), not the address.
 */
import tls from "node:tls";
import { isIP } from "node:net";

/** What the HTTP client needs of a connection (a `Deno.TcpConn` has it too). */
export interface ByteConn {
  read(buf: Uint8Array): Promise<number | null>;
  write(bytes: Uint8Array): Promise<number>;
  close(): void;
  /** Whether a pending read keeps the process alive (idle connections do not). */
  ref(): void;
  unref(): void;
}

/**
 * Bytes a socket may hold unread before it is closed. Pausing a node:tls socket in Deno stops its
 * events but not its reading (a paused socket took 354 MiB in 1.5 s), so a server that sends
 * faster than the HTTP reader takes is cut off instead: past what one answer may bring (a 1 MiB
 * body read to keep the connection, its framing and heads). An idle connection is closed at its
 * first byte (http_client.ts).
 */
const MAX_UNREAD = 4 * 1024 * 1024;

class TlsByteConn implements ByteConn {
  #chunks: Uint8Array[] = [];
  #held = 0;
  #ended = false;
  #error: Error | null = null;
  #wake: (() => void) | null = null;

  constructor(private readonly socket: tls.TLSSocket) {
    socket.on("data", (data: Uint8Array) => {
      this.#chunks.push(data);
      this.#held += data.length;
      if (this.#held <= MAX_UNREAD) return this.#notify();
      this.#finish(new Error(`the server sent over ${MAX_UNREAD} bytes nobody read`));
      this.close();
    });
    socket.on("end", () => this.#finish(null));
    socket.on("close", () => this.#finish(null));
    socket.on("error", (err: Error) => this.#finish(err));
  }

  #finish(err: Error | null): void {
    if (err && !this.#error && !this.#ended) this.#error = err;
    this.#ended = true;
    this.#notify();
  }

  #notify(): void {
    const wake = this.#wake;
    this.#wake = null;
    wake?.();
  }

  async read(buf: Uint8Array): Promise<number | null> {
    while (!this.#chunks.length) {
      if (this.#error) throw this.#error;
      if (this.#ended) return null;
      await new Promise<void>((resolve) => this.#wake = resolve);
    }
    const chunk = this.#chunks[0];
    const n = Math.min(chunk.length, buf.length);
    buf.set(chunk.subarray(0, n));
    if (n === chunk.length) this.#chunks.shift();
    else this.#chunks[0] = chunk.subarray(n);
    this.#held -= n;
    return n;
  }

  write(bytes: Uint8Array): Promise<number> {
    return new Promise((resolve, reject) => {
      if (this.#ended) return reject(this.#error ?? new Deno.errors.BrokenPipe("connection ended"));
      this.socket.write(bytes, (err) => err ? reject(err) : resolve(bytes.length));
    });
  }

  close(): void {
    this.socket.destroy();
    this.#chunks = [];
    this.#held = 0;
    this.#finish(null);
  }

  ref(): void {
    this.socket.ref();
  }

  unref(): void {
    this.socket.unref();
  }
}

/**
 * A TLS connection to `address`:`port` whose certificate must name `name` (an IP literal is
 * matched as an address); `caCerts` replace the default authorities. Rejects with the signal's
 * reason when it aborts first, the socket destroyed.
 */
export function connectTls(
  address: string,
  port: number,
  name: string,
  caCerts: string[] | undefined,
  signal?: AbortSignal,
): Promise<ByteConn> {
  signal?.throwIfAborted();
  const socket = tls.connect({
    host: address,
    port,
    servername: isIP(name) ? undefined : name,
    // Against the URL's name (not the address connected to), and by subjectAltName only: node
    // falls back to the subject's CN, which rustls (fetch) and current browsers refuse.
    checkServerIdentity: (_host, cert) =>
      cert.subjectaltname
        ? tls.checkServerIdentity(name, cert)
        : new Error("the certificate names no host (no subjectAltName)"),
    ALPNProtocols: ["http/1.1"],
    ca: caCerts,
    rejectUnauthorized: true,
  });
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      socket.destroy();
      reject(signal!.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
    socket.once("secureConnect", () => {
      signal?.removeEventListener("abort", onAbort);
      socket.setNoDelay(true);
      resolve(new TlsByteConn(socket));
    });
    socket.once("error", (err: Error) => {
      signal?.removeEventListener("abort", onAbort);
      socket.destroy();
      reject(err);
    });
  });
}
