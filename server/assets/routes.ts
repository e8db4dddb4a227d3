/**
 * Static routes: the built <portal-launcher> module at /widget/portal-launcher.js (ETag, CORS so
 * host pages on other origins can load it as a module script), and the pages' own styles and
 * scripts at /assets/<name>.
 */
import { Hono } from "hono";
import { cors } from "hono/cors";
import type { AppEnv } from "../http/env.ts";
import { bodyHash, notModified } from "../api/etag.ts";
import { STATIC_FILES } from "./static_files.ts";

/** Where `deno task build` writes the element. */
export const WIDGET_FILE = new URL("../../widget/dist/portal-launcher.js", import.meta.url);

/** Routes under /widget. */
export function widgetRoutes(file: URL = WIDGET_FILE): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  let cached: { text: string; etag: string; mtime: number } | null = null;

  app.get("/portal-launcher.js", cors({ origin: "*" }), async (c) => {
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

/** Routes under /assets: the files of server/assets/files/, revalidated by ETag. */
export function staticRoutes(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.get("/:name{[a-z0-9-]+\\.(css|js)}", (c) => {
    const file = STATIC_FILES.get(c.req.param("name"));
    if (!file) return c.notFound();
    c.header("ETag", file.etag);
    // Pages link to a ?v=<hash> URL, so a changed file has a new URL and may be cached long.
    c.header("Cache-Control", "public, max-age=86400");
    c.header("Content-Type", file.type);
    if (notModified(c, file.etag)) return c.body(null, 304);
    return c.body(file.text);
  });
  return app;
}
