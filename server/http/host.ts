/**
 * The Host header, checked before any route sees the request: the runtime builds the request's
 * URL from it, so a Host holding `/`, `?` or `#` would change the path every route, guard and
 * limit matches (`Host: example.com/admin/apps?` turns `GET /healthz` into the admin screen). A
 * proxy that routes by the request line and passes Host on unchanged would not see that.
 */
import type { MiddlewareHandler } from "hono";
import { AppError } from "./errors.ts";

/**
 * `host[:port]` (RFC 9110 §7.2, RFC 3986's reg-name, IPv4 or bracketed IPv6 literal): letters,
 * digits, `.`, `-` and `_` (container and service names use it), then an optional port.
 */
const HOST = /^(?:[A-Za-z0-9._-]+|\[[0-9A-Fa-f:.]+\])(?::[0-9]{1,5})?$/;

/**
 * True when `host` (a Host header's value) is `host[:port]` and nothing else, and a URL can be
 * built on it: routes parse `new URL(c.req.url)`, which refuses what the pattern lets through
 * (`foo.1`, `1.2.3.256`, a port past 65535, `[1]`).
 */
export function validHost(host: string): boolean {
  return HOST.test(host) && URL.canParse(`http://${host}/`);
}

/** Refuses a request whose Host header is not `host[:port]` with 400 `invalid_host`. */
export function refuseBadHost(): MiddlewareHandler {
  return (c, next) => {
    const host = c.req.header("Host");
    if (host !== undefined && !validHost(host)) {
      throw new AppError(
        400,
        "invalid_host",
        "The Host header must be host[:port], with nothing after the port",
      );
    }
    return next();
  };
}
