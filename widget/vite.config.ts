/**
 * `deno task build`: Vite builds widget/dist/portal-launcher.js, ONE self-contained ES module with
 * Lit bundled (the element), and widget/dist/signer.js (the host-backend signer with the
 * service's payload schema bundled, for Node and Bun). WIDGET_ENTRY picks which one.
 */
import { defineConfig } from "vite";

const entries = {
  element: { entry: "src/portal-launcher.ts", file: "portal-launcher.js" },
  signer: { entry: "signer/mod.ts", file: "signer.js" },
} as const;

const which = (Deno.env.get("WIDGET_ENTRY") ?? "element") as keyof typeof entries;
const chosen = entries[which];

export default defineConfig({
  root: new URL(".", import.meta.url).pathname,
  logLevel: "warn",
  build: {
    outDir: "dist",
    emptyOutDir: false,
    target: "es2022",
    minify: which === "element",
    lib: { entry: chosen.entry, formats: ["es"], fileName: () => chosen.file },
  },
});
