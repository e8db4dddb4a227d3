/**
 * `deno task build`: builds the widget bundles with Vite and reports their sizes (the element's
 * gzipped size is the one that matters to host pages).
 */
const root = new URL("../", import.meta.url).pathname;
const dist = `${root}widget/dist`;

async function vite(entry: "element" | "signer"): Promise<void> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "npm:vite@8.3.8", "build", "--config", "widget/vite.config.ts"],
    cwd: root,
    env: { WIDGET_ENTRY: entry },
    stdout: "inherit",
    stderr: "inherit",
  }).output();
  if (!out.success) {
    console.error(`build: vite failed for the ${entry} bundle`);
    Deno.exit(1);
  }
}

async function gzipSize(path: string): Promise<number> {
  const stream = (await Deno.open(path)).readable.pipeThrough(new CompressionStream("gzip"));
  return (await new Response(stream).arrayBuffer()).byteLength;
}

await Deno.remove(dist, { recursive: true }).catch(() => {});
console.log("build: widget/dist/portal-launcher.js (Lit bundled) ...");
await vite("element");
console.log("build: widget/dist/signer.js (for Node and Bun) ...");
await vite("signer");
for (const file of ["portal-launcher.js", "signer.js"]) {
  const path = `${dist}/${file}`;
  const size = (await Deno.stat(path)).size;
  console.log(
    `  ${file}: ${(size / 1024).toFixed(1)} KB, ${
      ((await gzipSize(path)) / 1024).toFixed(1)
    } KB gzipped`,
  );
}
