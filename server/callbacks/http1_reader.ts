/**
 * Reads one HTTP/1.1 response from a connection (RFC 9112): its head, then its body framed by
 * `Transfer-Encoding: chunked`, `Content-Length` or the connection's end. The callbacks' client
 * (http_client.ts) keeps the first bytes of a body for the delivery log and reads the rest only to
 * reuse the connection. Every limit is a `ProtocolError`: the server broke HTTP, the attempt fails
 * and is retried like a network error.
 */

/** The server's answer broke HTTP/1.1 (or one of the client's limits). */
export class ProtocolError extends Error {
  constructor(message: string) {
    super(`invalid HTTP response: ${message}`);
    this.name = "ProtocolError";
  }
}

/** The largest response head read: status line and header fields. */
const MAX_HEAD_BYTES = 64 * 1024;
/** The largest body read to reuse the connection; past it the connection is closed instead. */
const MAX_DRAIN_BYTES = 1024 * 1024;
/** The most framing read around a body (chunk lines, trailers); past it the connection is closed. */
const MAX_FRAMING_BYTES = 64 * 1024;
/** The most interim (1xx) responses before the final one. */
const MAX_INTERIM = 8;

/** A response's head. */
interface ResponseHead {
  status: number;
  headers: Headers;
  /** HTTP/1.1 without `Connection: close`: the connection may carry another request. */
  keepAlive: boolean;
}

/** A read response: its head, the body's first bytes, and whether the connection is reusable. */
interface ReadResponse extends ResponseHead {
  body: Uint8Array;
  reusable: boolean;
}

const CRLF2 = [13, 10, 13, 10];
const decoder = new TextDecoder();

/** What the reader needs of a connection. */
interface Readable {
  read(buf: Uint8Array): Promise<number | null>;
}

/**
 * Buffered reads from a connection. Between requests a read stays pending (watchIdle): anything
 * it brings while the connection is idle (a stray answer, the end, an error) means the connection
 * is done.
 */
export class ConnReader {
  #buf = new Uint8Array(16 * 1024);
  #start = 0;
  #end = 0;
  /** The read started while idle, taken over by the next fill. */
  #pending: Promise<number | null> | null = null;
  #idle = false;
  #idleEnded = false;

  constructor(private readonly conn: Readable) {}

  /**
   * Starts the idle read (nothing may be buffered: see `buffered`); `onEnd` is called when it
   * ends while the connection is still idle (the connection is done: close it).
   */
  watchIdle(onEnd: () => void): void {
    this.#start = this.#end = 0;
    this.#idle = true;
    const pending = this.conn.read(this.#buf);
    this.#pending = pending;
    const ended = () => {
      if (!this.#idle || this.#pending !== pending) return;
      this.#idleEnded = true;
      onEnd();
    };
    pending.then(ended, ended);
  }

  /** True when the idle read ended: the connection is done. */
  get ended(): boolean {
    return this.#idleEnded;
  }

  /** Ends the idle spell for a request: false when the connection is done (see watchIdle). */
  take(): boolean {
    this.#idle = false;
    return !this.#idleEnded;
  }

  /** True when bytes past the last response were read (a server that sent more than it framed). */
  get buffered(): boolean {
    return this.#end > this.#start;
  }

  /**
   * Reads more bytes into the buffer (growing it up to `limit`); false at the connection's end.
   * The idle read, if one is pending, is this read (into the empty buffer's start).
   */
  async #fill(limit: number): Promise<boolean> {
    let read = this.#pending;
    this.#pending = null;
    if (!read) {
      if (this.#start > 0 && this.#start === this.#end) this.#start = this.#end = 0;
      if (this.#end === this.#buf.length) {
        if (this.#start > 0) {
          this.#buf.copyWithin(0, this.#start, this.#end);
          this.#end -= this.#start;
          this.#start = 0;
        } else {
          if (this.#buf.length >= limit) return true;
          const bigger = new Uint8Array(Math.min(limit, this.#buf.length * 2));
          bigger.set(this.#buf);
          this.#buf = bigger;
        }
      }
      read = this.conn.read(this.#buf.subarray(this.#end));
    }
    const n = await read;
    if (n === null) return false;
    this.#end += n;
    return true;
  }

  /** The bytes up to and including the first CRLFCRLF, at most `limit` of them. */
  async #head(limit: number): Promise<Uint8Array> {
    let from = this.#start;
    for (;;) {
      const at = indexOf(this.#buf, CRLF2, from, this.#end);
      if (at >= 0) {
        const head = this.#buf.subarray(this.#start, at + 4);
        this.#start = at + 4;
        return head;
      }
      if (this.#end - this.#start >= limit) {
        throw new ProtocolError(`a head over ${limit} bytes`);
      }
      from = Math.max(this.#start, this.#end - 3);
      const before = this.#start;
      if (!(await this.#fill(limit))) {
        throw this.#end > this.#start
          ? new ProtocolError("the connection ended inside the head")
          : new Error("the server closed the connection without an answer");
      }
      from -= before - this.#start; // the buffer may have moved its content to the front
    }
  }

  /** One line ending in CRLF (chunk sizes and trailers), at most `limit` bytes. */
  async #line(limit: number): Promise<string> {
    for (;;) {
      const at = indexOf(this.#buf, [13, 10], this.#start, this.#end);
      if (at >= 0) {
        const line = decoder.decode(this.#buf.subarray(this.#start, at));
        this.#start = at + 2;
        return line;
      }
      if (this.#end - this.#start >= limit) throw new ProtocolError("a chunk line too long");
      if (!(await this.#fill(limit))) {
        throw new ProtocolError("the connection ended inside a chunked body");
      }
    }
  }

  /**
   * Passes the next `count` body bytes to `take`. Answers false when the connection ended first
   * (an error unless the body is framed by the connection's end).
   */
  async #bytes(count: number, take: (bytes: Uint8Array) => void): Promise<boolean> {
    let left = count;
    while (left > 0) {
      if (this.#start === this.#end && !(await this.#fill(this.#buf.length))) return false;
      const n = Math.min(left, this.#end - this.#start);
      take(this.#buf.subarray(this.#start, this.#start + n));
      this.#start += n;
      left -= n;
    }
    return true;
  }

  /** Reads a response (skipping 1xx interim ones); `head` true for a HEAD request's. */
  async response(keep: number, headRequest = false): Promise<ReadResponse> {
    let head = parseHead(await this.#head(MAX_HEAD_BYTES));
    for (let interim = 1; head.status >= 100 && head.status < 200; interim++) {
      if (head.status === 101) throw new ProtocolError("101 Switching Protocols was not asked");
      if (interim > MAX_INTERIM) throw new ProtocolError(`over ${MAX_INTERIM} 1xx responses`);
      head = parseHead(await this.#head(MAX_HEAD_BYTES));
    }
    const kept: Uint8Array[] = [];
    let keptBytes = 0;
    let total = 0;
    const take = (bytes: Uint8Array) => {
      total += bytes.length;
      if (keptBytes >= keep) return;
      const part = bytes.slice(0, keep - keptBytes);
      kept.push(part);
      keptBytes += part.length;
    };
    let reusable = head.keepAlive;
    const framing = bodyFraming(head, headRequest);
    if (framing === "chunked") {
      // Chunk lines and trailers count against MAX_FRAMING_BYTES: a body of tiny chunks or long
      // extensions is cut there, the connection closed.
      let framingBytes = 0;
      const line = async (limit: number) => {
        const text = await this.#line(limit);
        framingBytes += text.length + 2;
        if (framingBytes > MAX_FRAMING_BYTES) reusable = false;
        return text;
      };
      for (;;) {
        const size = chunkSize(await line(4096));
        if (size === 0 || !reusable) break;
        if (total + size > MAX_DRAIN_BYTES) {
          reusable = false;
          await this.#bytes(Math.min(size, Math.max(0, keep - keptBytes)), take);
          break;
        }
        if (!(await this.#bytes(size, take))) {
          throw new ProtocolError("the connection ended inside a chunk");
        }
        if (await line(2) !== "") throw new ProtocolError("a chunk not ended by CRLF");
      }
      // Trailer fields, up to the empty line: read and ignored.
      while (reusable && (await line(MAX_FRAMING_BYTES)) !== "");
    } else if (framing === "close") {
      reusable = false;
      await this.#bytes(Math.min(keep, MAX_DRAIN_BYTES), take);
    } else if (framing > MAX_DRAIN_BYTES) {
      reusable = false;
      await this.#bytes(Math.min(keep, framing), take);
    } else if (!(await this.#bytes(framing, take))) {
      throw new ProtocolError("the connection ended before Content-Length bytes");
    }
    return { ...head, body: concat(kept, keptBytes), reusable };
  }
}

function indexOf(buf: Uint8Array, seq: number[], from: number, end: number): number {
  const last = end - seq.length;
  outer: for (let i = Math.max(0, from); i <= last; i++) {
    for (let j = 0; j < seq.length; j++) if (buf[i + j] !== seq[j]) continue outer;
    return i;
  }
  return -1;
}

function concat(parts: Uint8Array[], size: number): Uint8Array {
  if (parts.length === 1) return parts[0];
  const out = new Uint8Array(size);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

const STATUS_LINE = /^HTTP\/1\.([01]) ([1-9]\d\d)(?: [^\r\n]*)?$/;
const FIELD = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+):[ \t]*(.*?)[ \t]*$/;

/** Parses a head (status line and fields, ending in CRLFCRLF). */
function parseHead(bytes: Uint8Array): ResponseHead {
  // Latin-1, as HTTP/1.1 field values are octets: a value's bytes are never refused as UTF-8.
  const text = latin1(bytes.subarray(0, bytes.length - 4));
  const lines = text.split("\r\n");
  const status = STATUS_LINE.exec(lines[0]);
  if (!status) throw new ProtocolError(`status line ${JSON.stringify(lines[0].slice(0, 80))}`);
  const headers = new Headers();
  for (let i = 1; i < lines.length; i++) {
    const field = FIELD.exec(lines[i]);
    if (!field || /[\0\r\n]/.test(field[2])) {
      throw new ProtocolError(`header field ${JSON.stringify(lines[i].slice(0, 80))}`);
    }
    headers.append(field[1], field[2]);
  }
  const connection = (headers.get("connection") ?? "").toLowerCase().split(/\s*,\s*/);
  return {
    status: Number(status[2]),
    headers,
    keepAlive: status[1] === "1" && !connection.includes("close"),
  };
}

function latin1(bytes: Uint8Array): string {
  let out = "";
  for (let i = 0; i < bytes.length; i += 8192) {
    out += String.fromCharCode(...bytes.subarray(i, i + 8192));
  }
  return out;
}

/** How the body is framed (RFC 9112 section 6.3): none (0), a length, chunked, or to the end. */
function bodyFraming(head: ResponseHead, headRequest: boolean): number | "chunked" | "close" {
  if (headRequest || head.status === 204 || head.status === 304) return 0;
  const te = head.headers.get("transfer-encoding");
  if (te !== null) {
    const codings = te.toLowerCase().split(/\s*,\s*/);
    return codings[codings.length - 1] === "chunked" ? "chunked" : "close";
  }
  const cl = head.headers.get("content-length");
  if (cl === null) return "close";
  // Repeated fields arrive joined by ", ": allowed only when every value is the same.
  const values = new Set(cl.split(/\s*,\s*/));
  const [value] = values;
  if (values.size !== 1 || !/^\d{1,15}$/.test(value)) {
    throw new ProtocolError(`Content-Length ${JSON.stringify(cl.slice(0, 40))}`);
  }
  return Number(value);
}

function chunkSize(line: string): number {
  const m = /^([0-9A-Fa-f]{1,8})(?:[ \t]*;.*)?$/.exec(line);
  if (!m) throw new ProtocolError(`chunk size ${JSON.stringify(line.slice(0, 40))}`);
  return parseInt(m[1], 16);
}
