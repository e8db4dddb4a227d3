/**
 * Connecting to a host's addresses for the callbacks' HTTP client (http_client.ts): the addresses
 * raced as RFC 8305 ("happy eyeballs") does, and the errors that blame an address rather than the
 * request.
 */
import type { ByteConn } from "./tls_conn.ts";

/**
 * How long an address's connection has alone before the next address is tried beside it (RFC
 * 8305's "connection attempt delay"): a host with a dead address costs a new connection 250 ms.
 */
export const NEXT_ADDRESS_AFTER_MS = 250;

/** The addresses with IPv6 and IPv4 alternating, each family in its own order, the first's first. */
export function alternateFamilies(addresses: string[]): string[] {
  const v6 = addresses.filter((a) => a.includes(":"));
  const v4 = addresses.filter((a) => !a.includes(":"));
  const [first, second] = addresses[0]?.includes(":") ? [v6, v4] : [v4, v6];
  const out: string[] = [];
  for (let i = 0; i < Math.max(first.length, second.length); i++) {
    if (i < first.length) out.push(first[i]);
    if (i < second.length) out.push(second[i]);
  }
  return out;
}

/**
 * The first of `list`'s connections to succeed (see CallbackHttpClient's #connect); every address
 * is tried until one connects, whatever the others' errors (a container without IPv6 refuses an
 * IPv6 address with EADDRNOTAVAIL; a certificate may be wrong on one address only). When all fail,
 * the error names an address and what it said, a failure that is not a plain unreachable one
 * (a certificate) first. `signal` ends it all, with its reason.
 */
export function firstToConnect(
  list: string[],
  signal: AbortSignal | undefined,
  attempt: (address: string, limit: AbortSignal) => Promise<ByteConn>,
): Promise<ByteConn> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    if (!list.length) return reject(new Error("no address to connect to"));
    const lost = new AbortController();
    let started = 0;
    let failed = 0;
    let settled = false;
    let worst: { address: string; err: unknown } | null = null;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const finish = (err: unknown, conn?: ByteConn) => {
      if (settled) {
        if (conn) closeQuietly(conn);
        return;
      }
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
      lost.abort(new Error("another address connected first"));
      if (conn) resolve(conn);
      else reject(err);
    };
    const onAbort = () => finish(signal!.reason);
    const failure = (address: string, err: unknown) => {
      if (settled) return;
      if (!worst || (unreachable(worst.err) && !unreachable(err))) worst = { address, err };
      if (++failed < list.length) return startNext();
      const reason = worst.err instanceof Error ? worst.err.message : String(worst.err);
      finish(new Error(`${worst.address}: ${reason}`));
    };
    const startNext = () => {
      clearTimeout(timer);
      if (settled || started === list.length) return;
      const address = list[started++];
      let connecting: Promise<ByteConn>;
      try {
        connecting = attempt(address, lost.signal);
      } catch (err) {
        connecting = Promise.reject(err);
      }
      connecting.then((conn) => finish(null, conn), (err) => failure(address, err));
      if (started < list.length) timer = setTimeout(startNext, NEXT_ADDRESS_AFTER_MS);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
    startNext();
  });
}

/** A failure to reach an address (refused, reset, timed out, no route), not a refusal of it. */
function unreachable(err: unknown): boolean {
  const code = (err as { code?: unknown })?.code;
  return err instanceof Deno.errors.ConnectionRefused || err instanceof Deno.errors.TimedOut ||
    err instanceof Deno.errors.NetworkUnreachable || err instanceof Deno.errors.ConnectionReset ||
    (typeof code === "string" &&
      ["ECONNREFUSED", "ETIMEDOUT", "ENETUNREACH", "EHOSTUNREACH", "ECONNRESET"].includes(code));
}

/** Closes a connection; answers false, so a filter can close what it drops. */
export function closeQuietly(conn: ByteConn): false {
  try {
    conn.close();
  } catch {
    // already closed
  }
  return false;
}
