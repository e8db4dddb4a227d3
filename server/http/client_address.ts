/** The client's address: X-Forwarded-For when TRUST_PROXY is on, else the connection's peer. */
import type { Context } from "hono";
import { getConnInfo } from "hono/deno";
import type { Deps } from "../deps.ts";

/** The address a request came from, or null when unknown (e.g. in-process test requests). */
export function clientAddress(deps: Deps, c: Context): string | null {
  if (deps.config.trustProxy) {
    const forwarded = c.req.header("X-Forwarded-For")?.split(",")[0].trim();
    if (forwarded) return forwarded;
  }
  try {
    return getConnInfo(c).remote.address ?? null;
  } catch {
    return null;
  }
}
