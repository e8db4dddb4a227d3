/**
 * HTTP/1.1 over one TCP connection, to see what `fetch` hides: which connection a request uses,
 * the `Connection` header of a response, and the server closing the socket.
 */

/** A parsed response. */
export interface RawResponse {
  status: number;
  /** Header names in lower case. */
  headers: Record<string, string>;
  body: string;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** One client connection to 127.0.0.1:`port`. */
export class RawConnection {
  #buffer = new Uint8Array(0);

  private constructor(readonly conn: Deno.TcpConn) {}

  /** Connects to 127.0.0.1:`port`. */
  static async open(port: number): Promise<RawConnection> {
    return new RawConnection(await Deno.connect({ hostname: "127.0.0.1", port }));
  }

  /** Writes `data` as it is (a request, or part of one). */
  async send(data: string): Promise<void> {
    const bytes = encoder.encode(data);
    for (let at = 0; at < bytes.length;) at += await this.conn.write(bytes.subarray(at));
  }

  /** Sends a GET of `path` on this connection and reads its response. */
  async get(path: string): Promise<RawResponse> {
    await this.send(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);
    return await this.response();
  }

  /** Reads more bytes; false at the end of the stream (the server closed it). */
  async #fill(): Promise<boolean> {
    const chunk = new Uint8Array(16_384);
    let n: number | null;
    try {
      n = await this.conn.read(chunk);
    } catch (err) {
      if (err instanceof Deno.errors.ConnectionReset) return false;
      throw err;
    }
    if (n === null) return false;
    const joined = new Uint8Array(this.#buffer.length + n);
    joined.set(this.#buffer);
    joined.set(chunk.subarray(0, n), this.#buffer.length);
    this.#buffer = joined;
    return true;
  }

  async #take(n: number): Promise<string> {
    while (this.#buffer.length < n) {
      if (!await this.#fill()) throw new Error("connection closed in the middle of a response");
    }
    const text = decoder.decode(this.#buffer.subarray(0, n));
    this.#buffer = this.#buffer.subarray(n);
    return text;
  }

  async #line(): Promise<string> {
    for (;;) {
      const at = this.#buffer.findIndex((b, i) => b === 10 && this.#buffer[i - 1] === 13);
      if (at >= 0) return (await this.#take(at + 1)).slice(0, -2);
      if (!await this.#fill()) throw new Error("connection closed before a complete line");
    }
  }

  /** Reads one response (Content-Length or chunked body). */
  async response(): Promise<RawResponse> {
    const status = Number((await this.#line()).split(" ")[1]);
    const headers: Record<string, string> = {};
    for (let line = await this.#line(); line; line = await this.#line()) {
      const colon = line.indexOf(":");
      headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    let body = "";
    if (headers["transfer-encoding"] === "chunked") {
      for (let size = parseInt(await this.#line(), 16); size > 0;) {
        body += await this.#take(size);
        await this.#line();
        size = parseInt(await this.#line(), 16);
      }
      await this.#line();
    } else {
      body = await this.#take(Number(headers["content-length"] ?? 0));
    }
    return { status, headers, body };
  }

  /** True when the server ends the connection within `timeoutMs` (nothing more is sent). */
  async closedByServer(timeoutMs = 5_000): Promise<boolean> {
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      this.close();
    }, timeoutMs);
    try {
      while (await this.#fill()) { /* a response nobody asked for: keep reading */ }
      return !timedOut;
    } catch {
      return false; // closed here on timeout
    } finally {
      clearTimeout(timer);
    }
  }

  /** Closes the client side. */
  close(): void {
    try {
      this.conn.close();
    } catch { /* already closed */ }
  }
}
