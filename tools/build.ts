/**
 * `deno task build`: builds the element (widget/dist/portal-launcher.js) and the signer package
 * (widget/signer/dist/signer.js and validate.js) with Vite, and reports their sizes; the gzipped
 * sizes are the ones that matter (element ≤ 12 KB, signer core ≤ 3 KB: checked by tests).
 *
 * Builds can overlap (`deno task start` builds, and so do test processes running in parallel)
 * while a running service or test reads the bundles. So Vite writes into a directory of this
 * build's own under widget/, and each finished bundle is then renamed into place: a reader sees
 * the old file or the new one, never none or half of one.
 */
const root = new URL("../", import.meta.url).pathname;

/** The bundles: Vite entry name, output file. */
export const BUNDLES = [
  { entry: "element", file: "widget/dist/portal-launcher.js", what: "the element, Lit bundled" },
  { entry: "bridge", file: "widget/dist/portal-bridge.js", what: "portal pages' host bridge" },
  { entry: "signer", file: "widget/signer/dist/signer.js", what: "signer core, no dependencies" },
  {
    entry: "validate",
    file: "widget/signer/dist/validate.js",
    what: "signer/validate, zod bundled",
  },
] as const;

/** Builds bundle `entry` with Vite into `stage` (a directory under widget/, as its outDir root). */
async function vite(entry: string, stage: string): Promise<void> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "npm:vite@8.3.8", "build", "--config", "widget/vite.config.ts"],
    cwd: root,
    env: { WIDGET_ENTRY: entry, WIDGET_STAGE: stage },
    stdout: "inherit",
    stderr: "inherit",
  }).output();
  if (!out.success) {
    console.error(`build: vite failed for the ${entry} bundle`);
    Deno.exit(1);
  }
}

/** The gzipped size of a file, in bytes. */
export async function gzipSize(path: string): Promise<number> {
  const stream = (await Deno.open(path)).readable.pipeThrough(new CompressionStream("gzip"));
  return (await new Response(stream).arrayBuffer()).byteLength;
}

if (import.meta.main) {
  const stage = `.stage-${Deno.pid}-${Date.now()}`;
  try {
    for (const b of BUNDLES) {
      console.log(`build: ${b.file} (${b.what}) ...`);
      await vite(b.entry, stage);
    }
    for (const b of BUNDLES) {
      const final = `${root}${b.file}`;
      await Deno.mkdir(final.slice(0, final.lastIndexOf("/")), { recursive: true });
      // widget/dist/x.js was built as widget/<stage>/dist/x.js.
      await Deno.rename(final.replace(`${root}widget/`, `${root}widget/${stage}/`), final);
    }
  } finally {
    await Deno.remove(`${root}widget/${stage}`, { recursive: true }).catch(() => {});
  }
  for (const b of BUNDLES) {
    const path = `${root}${b.file}`;
    const size = (await Deno.stat(path)).size;
    const gz = await gzipSize(path);
    console.log(
      `  ${b.file}: ${(size / 1024).toFixed(1)} KB, ${(gz / 1024).toFixed(1)} KB gzipped`,
    );
  }
}
