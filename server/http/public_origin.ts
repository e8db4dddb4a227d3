/**
 * Two origins, kept apart on purpose. Anything sent away from this request (a mail link, the
 * OAuth metadata, the launch URLs an administrator copies into a host app, an API document) is
 * built from PUBLIC_URL only: a forwarded header must never decide where a link that outlives the
 * request points. The request's own origin (what a browser sends as `Origin` on a same-origin
 * post, the host a same-request redirect goes back to) may follow the proxy's X-Forwarded-Host
 * and X-Forwarded-Proto, read from the right like X-Forwarded-For (client_address.ts), and only
 * when the host is one of PUBLIC_HOSTS.
 */
import type { Context } from "hono";
import { type Config, HOST_PORT } from "../config.ts";
import { forwardedEntry } from "./client_address.ts";

/** The origin of everything sent away: PUBLIC_URL, always. */
export function publicOrigin(config: Pick<Config, "publicUrl">): string {
  return config.publicUrl;
}

/**
 * `host` (from a Host or X-Forwarded-Host value) lowercased, without the scheme's default port,
 * or null when it is no plain host[:port].
 */
export function normalizedHost(host: string, scheme: "http" | "https"): string | null {
  const lower = host.trim().toLowerCase();
  if (!HOST_PORT.test(lower)) return null;
  const port = scheme === "https" ? ":443" : ":80";
  return lower.endsWith(port) ? lower.slice(0, -port.length) : lower;
}

/**
 * The origin this request was made to, for same-request uses only (same-origin checks, a
 * redirect answered to this request). Behind trusted proxies (TRUST_PROXY) it is the entry the
 * outermost of the TRUSTED_PROXY_HOPS proxies wrote in X-Forwarded-Host (and -Proto) when that
 * host is one of PUBLIC_HOSTS; in every other case PUBLIC_URL.
 */
export function requestOrigin(
  config: Pick<Config, "publicUrl" | "publicHosts" | "trustProxy" | "trustedProxyHops">,
  c: Context,
): string {
  if (!config.trustProxy) return config.publicUrl;
  const forwardedHost = c.req.header("X-Forwarded-Host");
  const host = forwardedHost ? forwardedEntry(forwardedHost, config.trustedProxyHops) : null;
  if (!host) return config.publicUrl;
  const forwardedProto = c.req.header("X-Forwarded-Proto");
  const proto = forwardedProto
    ? forwardedEntry(forwardedProto, config.trustedProxyHops)?.toLowerCase()
    : undefined;
  const scheme = proto === "https" || proto === "http"
    ? proto
    : new URL(config.publicUrl).protocol === "https:"
    ? "https"
    : "http";
  const normalized = normalizedHost(host, scheme);
  const listed = normalized !== null &&
    config.publicHosts.some((allowed) => normalizedHost(allowed, scheme) === normalized);
  return listed ? `${scheme}://${normalized}` : config.publicUrl;
}
