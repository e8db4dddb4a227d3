/**
 * The client's address. Behind trusted proxies (TRUST_PROXY), X-Forwarded-For is read from the
 * right: each of the TRUSTED_PROXY_HOPS proxies appended one entry, so the client is the entry the
 * outermost proxy appended; anything left of it was written by the client and is not trusted.
 * Otherwise it is the connection's peer. X-Forwarded-Host and -Proto are read the same way
 * (public_origin.ts).
 */
import type { Context } from "hono";
import { getConnInfo } from "hono/deno";
import type { Deps } from "../deps.ts";

/**
 * The entry the outermost of `hops` trusted proxies wrote in a comma-separated forwarded header
 * (X-Forwarded-For, -Host, -Proto): the `hops`-th from the right, or the left-most when there are
 * fewer (a proxy that replaces the header instead of appending to it leaves one entry).
 */
export function forwardedEntry(header: string, hops: number): string | null {
  const entries = header.split(",").map((e) => e.trim()).filter(Boolean);
  if (!entries.length) return null;
  return entries[Math.max(0, entries.length - hops)];
}

/** The address a request came from, or null when unknown (e.g. in-process test requests). */
export function clientAddress(deps: Deps, c: Context): string | null {
  if (deps.config.trustProxy) {
    const forwarded = c.req.header("X-Forwarded-For");
    const client = forwarded ? forwardedEntry(forwarded, deps.config.trustedProxyHops) : null;
    if (client) return client;
  }
  try {
    return getConnInfo(c).remote.address ?? null;
  } catch {
    return null;
  }
}
