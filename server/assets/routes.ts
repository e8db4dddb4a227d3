/**
 * Static routes: the built <portal-launcher> module at /widget/portal-launcher.js (ETag, CORS so
 * host pages on other origins can load it as a module script) and the portal pages' bridge at
 * /widget/portal-bridge.js, and the pages' own styles and scripts at /assets/<name>.
 */
import { Hono } from "hono";
import { cors } from "hono/cors";
import type { AppEnv } from "../http/env.ts";
import { bodyHash, notModified } from "../api/etag.ts";
import { STATIC_FILES } from "./static_files.ts";

/** Where `deno task build` writes the element and the portal pages' host message bridge. */
export const WIDGET_FILES = {
  "portal-launcher.js": new URL("../../widget/dist/portal-launcher.js", import.meta.url),
  "portal-bridge.js": new URL("../../widget/dist/portal-bridge.js", import.meta.url),
};

/** Routes under /widget: each built file, cached in memory until it changes on disk. */
export function widgetRoutes(files: Record<string, URL> = WIDGET_FILES): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const cached = new Map<string, { text: string; etag: string; mtime: number }>();

  for (const [name, file] of Object.entries(files)) {
    app.get(`/${name}`, cors({ origin: "*" }), async (c) => {
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
      let entry = cached.get(name);
      if (!entry || entry.mtime !== mtime) {
        const text = await Deno.readTextFile(file);
        entry = { text, etag: `"${bodyHash(text)}"`, mtime };
        cached.set(name, entry);
      }
      c.header("ETag", entry.etag);
      c.header("Cache-Control", "public, max-age=300, must-revalidate");
      c.header("Content-Type", "text/javascript; charset=utf-8");
      if (notModified(c, entry.etag)) return c.body(null, 304);
      return c.body(entry.text);
    });
  }
  return app;
}

/** Routes under /assets: the files of server/assets/files/, revalidated by ETag. */
export function staticRoutes(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.get("/:name{[a-z0-9-]+\\.(css|js|svg)}", (c) => {
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

/**
 * GET /favicon.ico: the service's icon (an SVG; browsers read it by its Content-Type), for pages
 * that link none (error pages) and tools that ask for it at the root.
 */
export function faviconRoute(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.get("/", (c) => {
    const file = STATIC_FILES.get("favicon.svg")!;
    c.header("ETag", file.etag);
    c.header("Cache-Control", "public, max-age=86400");
    c.header("Content-Type", file.type);
    if (notModified(c, file.etag)) return c.body(null, 304);
    return c.body(file.text);
  });
  return app;
}
