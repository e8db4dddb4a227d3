/**
 * Serves the built <portal-launcher> module at /widget/portal-launcher.js, with an ETag (a hash of
 * the file) so browsers keep it and revalidate cheaply, and CORS so host pages on other origins can
 * load it as a module script.
 */
import { Hono } from "hono";
import type { AppEnv } from "../http/env.ts";
import { bodyHash, notModified } from "../api/etag.ts";

/** Where `deno task build` writes the element. */
export const WIDGET_FILE = new URL("../../widget/dist/portal-launcher.js", import.meta.url);

/** Routes under /widget. */
export function widgetRoutes(file: URL = WIDGET_FILE): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  let cached: { text: string; etag: string; mtime: number } | null = null;

  app.get("/portal-launcher.js", async (c) => {
    c.header("Access-Control-Allow-Origin", "*");
    let stat: Deno.FileInfo;
    try {
      stat = await Deno.stat(file);
    } catch {
      return c.text(
        "The widget is not built: run `deno task build` (deno task start does it first).",
        503,
      );
    }
    const mtime = stat.mtime?.getTime() ?? 0;
    if (!cached || cached.mtime !== mtime) {
      const text = await Deno.readTextFile(file);
      cached = { text, etag: `"${bodyHash(text)}"`, mtime };
    }
    c.header("ETag", cached.etag);
    c.header("Cache-Control", "public, max-age=300, must-revalidate");
    c.header("Content-Type", "text/javascript; charset=utf-8");
    if (notModified(c, cached.etag)) return c.body(null, 304);
    return c.body(cached.text);
  });
  return app;
}
