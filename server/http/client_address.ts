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

const HEX_GROUP = /^[0-9a-f]{1,4}$/;

/** The eight groups of an IPv6 address written without an embedded IPv4 part, or null. */
function ipv6Groups(text: string): string[] | null {
  const halves = text.split("::");
  if (halves.length > 2) return null;
  const split = (part: string) => part ? part.split(":") : [];
  const head = split(halves[0]);
  const tail = halves.length === 2 ? split(halves[1]) : [];
  const missing = 8 - head.length - tail.length;
  if (halves.length === 2 ? missing < 1 : missing !== 0) return null;
  const groups = [...head, ...Array(missing).fill("0"), ...tail];
  return groups.every((g) => HEX_GROUP.test(g)) ? groups : null;
}

/**
 * The key a client address is rate-limited under (the launch and OAuth failure limits, password
 * sign-in, password reset, screen-sharing codes). An IPv6 client is its /64 prefix, written
 * `2001:db8:0:1::/64`: one subscriber's network is a /64 (RFC 6177), so a client could take a new
 * address from it for every try and never be counted twice. An IPv4 address is itself, its port
 * dropped when a proxy wrote one into X-Forwarded-For (`203.0.113.9:51234`), and so is an
 * IPv4-mapped IPv6 address (`::ffff:203.0.113.9`). Anything else (other IPv6 forms with an IPv4
 * part, text that is no address) is limited as written, lower-cased; no address at all (in-process
 * requests) is `unknown`.
 */
export function rateLimitKey(address: string | null): string {
  if (!address) return "unknown";
  let text = address.trim().toLowerCase();
  const bracketed = text.match(/^\[([^\]]+)\](?::\d+)?$/);
  if (bracketed) text = bracketed[1];
  text = text.replace(/%.*$/, ""); // an IPv6 zone (fe80::1%eth0) names the server's interface
  const v4 = text.match(/^((?:\d{1,3}\.){3}\d{1,3})(?::\d{1,5})?$/) ??
    text.match(/^::ffff:((?:\d{1,3}\.){3}\d{1,3})$/);
  if (v4) return v4[1];
  const groups = text.includes(":") ? ipv6Groups(text) : null;
  if (!groups) return text || "unknown";
  return `${groups.slice(0, 4).map((g) => g.replace(/^0+(?=.)/, "")).join(":")}::/64`;
}
