/** Builds the widget bundle for browser tests when it is missing or older than its sources. */
const root = new URL("../../", import.meta.url).pathname;

async function newest(dir: string): Promise<number> {
  let latest = 0;
  for await (const entry of Deno.readDir(dir)) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory) latest = Math.max(latest, await newest(path));
    else latest = Math.max(latest, (await Deno.stat(path)).mtime?.getTime() ?? 0);
  }
  return latest;
}

let built: Promise<void> | undefined;

/** Runs `deno task build` once per test process when widget/dist is stale. */
export function ensureWidgetBuilt(): Promise<void> {
  built ??= (async () => {
    const bundle = await Deno.stat(`${root}widget/dist/portal-launcher.js`).catch(() => null);
    const sources = Math.max(
      await newest(`${root}widget/src`),
      await newest(`${root}widget/signer`),
      await newest(`${root}server/launch`),
    );
    if (bundle && (bundle.mtime?.getTime() ?? 0) >= sources) return;
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", "tools/build.ts"],
      cwd: root,
      stdout: "piped",
      stderr: "piped",
    }).output();
    if (!out.success) {
      throw new Error(`deno task build failed:\n${new TextDecoder().decode(out.stderr)}`);
    }
  })();
  return built;
}
