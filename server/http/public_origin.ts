/** The origin used in absolute URLs: PUBLIC_URL, or the forwarded one behind a trusted proxy. */
import type { Context } from "hono";
import type { Config } from "../config.ts";

/** Returns `scheme://host[:port]` for links built while serving this request. */
export function publicOrigin(config: Config, c: Context): string {
  if (!config.trustProxy) return config.publicUrl;
  const host = c.req.header("X-Forwarded-Host")?.split(",")[0].trim();
  const proto = c.req.header("X-Forwarded-Proto")?.split(",")[0].trim().toLowerCase();
  if (!host || !/^[A-Za-z0-9.\-]+(:\d+)?$|^\[[0-9a-fA-F:]+\](:\d+)?$/.test(host)) {
    return config.publicUrl;
  }
  const scheme = proto === "https" || proto === "http" ? proto : new URL(config.publicUrl).protocol
    .slice(0, -1);
  return `${scheme}://${host}`;
}
