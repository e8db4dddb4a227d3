/**
 * `deno task build`: Vite builds widget/dist/portal-launcher.js, ONE self-contained ES module with
 * Lit bundled (the element), widget/dist/portal-bridge.js (the portal pages' host message
 * bridge), and the signer package's files: widget/signer/dist/signer.js (the
 * dependency-free core) and widget/signer/dist/validate.js (the service's payload schema, zod
 * bundled). WIDGET_ENTRY picks which one; everything is minified.
 */
import { defineConfig } from "vite";

const entries = {
  element: { entry: "src/portal-launcher.ts", outDir: "dist", file: "portal-launcher.js" },
  bridge: { entry: "../server/portal/bridge.ts", outDir: "dist", file: "portal-bridge.js" },
  signer: { entry: "signer/mod.ts", outDir: "signer/dist", file: "signer.js" },
  validate: { entry: "signer/validate.ts", outDir: "signer/dist", file: "validate.js" },
} as const;

const which = (Deno.env.get("WIDGET_ENTRY") ?? "element") as keyof typeof entries;
const chosen = entries[which];
// tools/build.ts builds into a directory of its own (WIDGET_STAGE, under widget/), then renames
// each bundle into place.
const stage = Deno.env.get("WIDGET_STAGE");

export default defineConfig({
  root: new URL(".", import.meta.url).pathname,
  logLevel: "warn",
  build: {
    outDir: stage ? `${stage}/${chosen.outDir}` : chosen.outDir,
    emptyOutDir: false,
    target: "es2022",
    minify: true,
    lib: { entry: chosen.entry, formats: ["es"], fileName: () => chosen.file },
  },
});
