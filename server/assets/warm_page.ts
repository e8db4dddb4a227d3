/**
 * The portal's warm-up page, `{portal_url}/widget/warm`: an empty document that links the portal
 * pages' stylesheet. `<portal-launcher portal-url=... target="iframe">` loads it in a hidden frame
 * while the host page is open, so the browser has started the portal site's renderer process,
 * opened a connection and cached the stylesheet before the agent clicks (docs/embedding.md).
 * It shows nothing, runs nothing and reads no cookie, so any page may frame it.
 */
import type { Context } from "hono";
import type { AppEnv } from "../http/env.ts";
import { assetPath } from "./static_files.ts";

/** The handler of GET {prefix}/widget/warm. */
export function warmPage(prefix: string): (c: Context<AppEnv>) => Response {
  const html = `<!doctype html><html><head><meta charset="utf-8"><title>Portal</title>` +
    `<link rel="stylesheet" href="${assetPath("portal.css", prefix)}"></head><body></body></html>`;
  return (c) => {
    c.header(
      "Content-Security-Policy",
      "default-src 'none'; style-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors *",
    );
    c.header("Cache-Control", "public, max-age=300");
    return c.html(html);
  };
}
