/** Builds the widget bundles for tests when one is missing or older than its sources. */
import { BUNDLES } from "../../tools/build.ts";

const root = new URL("../../", import.meta.url).pathname;

async function newest(dir: string, skip: string[] = []): Promise<number> {
  let latest = 0;
  for await (const entry of Deno.readDir(dir)) {
    if (skip.includes(entry.name)) continue;
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory) latest = Math.max(latest, await newest(path));
    else latest = Math.max(latest, (await Deno.stat(path)).mtime?.getTime() ?? 0);
  }
  return latest;
}

let built: Promise<void> | undefined;

/** Runs `deno task build` once per test process when a bundle is stale. */
export function ensureWidgetBuilt(): Promise<void> {
  built ??= (async () => {
    const bundles = await Promise.all(
      BUNDLES.map((b) => Deno.stat(`${root}${b.file}`).catch(() => null)),
    );
    const builtAt = Math.min(...bundles.map((b) => b?.mtime?.getTime() ?? 0));
    const sources = Math.max(
      await newest(`${root}widget/src`),
      await newest(`${root}widget/signer`, ["dist"]),
      await newest(`${root}server/launch`),
      await newest(`${root}server/portal`),
    );
    if (builtAt >= sources) return;
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
