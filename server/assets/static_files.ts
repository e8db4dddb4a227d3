/**
 * The service's own static files (styles and browser scripts of the server-rendered pages), kept
 * as real files in server/assets/files/ so that `deno fmt` and `deno lint` see them. Read once at
 * start; each is served at `/assets/<name>` (and under the portal prefix) with an ETag, and pages
 * link to `assetPath(name)`, whose `?v=` query changes with the content.
 */
import { bodyHash } from "../api/etag.ts";

const DIR = new URL("./files/", import.meta.url);

const TYPES: Record<string, string> = {
  css: "text/css; charset=utf-8",
  js: "text/javascript; charset=utf-8",
  svg: "image/svg+xml",
};

/** One static file, ready to serve. */
export interface StaticFile {
  text: string;
  type: string;
  etag: string;
}

function load(): Map<string, StaticFile> {
  const files = new Map<string, StaticFile>();
  for (const entry of Deno.readDirSync(DIR)) {
    const type = TYPES[entry.name.split(".").pop() ?? ""];
    if (!entry.isFile || !type) continue;
    const text = Deno.readTextFileSync(new URL(entry.name, DIR));
    files.set(entry.name, { text, type, etag: `"${bodyHash(text)}"` });
  }
  return files;
}

/** Every static file by name. */
export const STATIC_FILES: ReadonlyMap<string, StaticFile> = load();

/** The URL path of a static file, versioned by its content: `/assets/portal.css?v=…`. */
export function assetPath(name: string, prefix = ""): string {
  const file = STATIC_FILES.get(name);
  if (!file) throw new Error(`no static file ${name} in server/assets/files/`);
  return `${prefix}/assets/${name}?v=${file.etag.slice(1, 9)}`;
}
