/**
 * `deno task release [--out dir] [--compile]`: writes dist/portal-launcher/, a directory that runs
 * on a machine with only Deno and no network: the server and its tools, the built widget, a
 * deno.json and deno.lock holding only the npm packages they import, those packages vendored in
 * node_modules/ (`deno install`), and bin/portal-launcher (deploy/bin/portal-launcher), which runs
 * with --cached-only --frozen. Before it reports, it loads every module of the release with an
 * empty DENO_DIR and an unreachable registry, so a release that would need the network fails here.
 * `--compile` also writes one executable (`deno compile`), which needs the Deno runtime binary
 * `denort`: Deno downloads it, or takes DENORT_BIN on a machine without network.
 */
const ROOT = new URL("../", import.meta.url).pathname;

/** What the release holds from the repository, besides the generated files. */
export const RELEASE_FILES = {
  dirs: ["server", "db", "widget/dist"],
  files: [
    "tools/cli.ts",
    "tools/migrate.ts",
    "tools/backup.ts",
    "tools/restore.ts",
    "tools/migrate_to_postgres.ts",
    "deploy/portal-launcher.service",
    "LICENSE",
    "CHANGELOG.md",
  ],
  /** The entry points whose module graphs the vendored npm packages must cover. */
  entries: ["tools/cli.ts", "tools/backup.ts", "tools/restore.ts", "tools/migrate_to_postgres.ts"],
};

/** Files the single executable reads at run time (modules are embedded without being named). */
const COMPILE_INCLUDES = ["db/migrations", "db/functions", "server/assets/files", "widget/dist"];

/** An unreachable npm registry: nothing may be fetched while the release is checked. */
export const NO_REGISTRY = "http://127.0.0.1:9/";

const print = (line: string) => console.log(`release: ${line}`);

async function run(args: string[], options: Deno.CommandOptions = {}): Promise<string> {
  const out = await new Deno.Command(Deno.execPath(), {
    args,
    stdout: "piped",
    stderr: "piped",
    ...options,
  }).output();
  const text = new TextDecoder().decode(out.stdout);
  if (!out.success) {
    throw new Error(`deno ${args[0]} failed:\n${new TextDecoder().decode(out.stderr)}${text}`);
  }
  return text;
}

async function copyTree(from: string, to: string): Promise<void> {
  await Deno.mkdir(to, { recursive: true });
  for await (const entry of Deno.readDir(from)) {
    if (entry.isDirectory) await copyTree(`${from}/${entry.name}`, `${to}/${entry.name}`);
    else if (entry.isFile) await Deno.copyFile(`${from}/${entry.name}`, `${to}/${entry.name}`);
  }
}

/** The bytes and files under `dir` (symbolic links not followed). */
export async function treeSize(dir: string): Promise<{ bytes: number; files: number }> {
  let bytes = 0, files = 0;
  for await (const entry of Deno.readDir(dir)) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory) {
      const sub = await treeSize(path);
      bytes += sub.bytes;
      files += sub.files;
    } else if (entry.isFile) {
      bytes += (await Deno.lstat(path)).size;
      files++;
    }
  }
  return { bytes, files };
}

/** The npm package names the module graphs of `entries` load (`hono`, `@scope/name`). */
async function npmPackagesOf(entries: string[]): Promise<Set<string>> {
  const names = new Set<string>();
  for (const entry of entries) {
    const info = JSON.parse(await run(["info", "--json", entry], { cwd: ROOT }));
    for (
      const module of info.modules as { kind: string; npmPackage?: string; specifier?: string }[]
    ) {
      // nodeModulesDir "manual" resolves npm packages to files under node_modules/.deno/.
      const name = module.kind === "npm"
        ? /^(@?[^@]+)@/.exec(module.npmPackage ?? "")?.[1]
        : /node_modules\/\.deno\/[^/]+\/node_modules\/(@[^/]+\/[^/]+|[^/]+)\//
          .exec(module.specifier ?? "")?.[1];
      if (name) names.add(name);
    }
  }
  return names;
}

/** The release's deno.json: the repository's version, compiler options and used imports. */
async function releaseConfig(): Promise<Record<string, unknown>> {
  const config = JSON.parse(await Deno.readTextFile(`${ROOT}deno.json`));
  const used = await npmPackagesOf(RELEASE_FILES.entries);
  const imports = Object.fromEntries(
    Object.entries(config.imports as Record<string, string>).filter(([, target]) => {
      const name = /^npm:\/?(@?[^@]+)@/.exec(target)?.[1];
      return name !== undefined && used.has(name);
    }),
  );
  // Type packages (`@types/...`) come with the package they describe, not from the import map.
  const missing = [...used].filter((n) =>
    !n.startsWith("@types/") && !Object.values(imports).some((t) => t.includes(`${n}@`))
  );
  if (missing.length) throw new Error(`imported but not in deno.json imports: ${missing}`);
  return {
    version: config.version,
    imports,
    nodeModulesDir: "auto",
    compilerOptions: config.compilerOptions,
  };
}

/**
 * Resolves every entry's module graph in `dir` (`deno install --cached-only --frozen`) and runs
 * `bin/portal-launcher version`, with an empty DENO_DIR and the registry unreachable; throws
 * naming what failed.
 */
export async function checkOffline(dir: string): Promise<void> {
  const denoDir = await Deno.makeTempDir({ prefix: "pl-release-deno-dir-" });
  const env = { DENO_DIR: denoDir, NPM_CONFIG_REGISTRY: NO_REGISTRY, DENO_NO_UPDATE_CHECK: "1" };
  try {
    await run(["install", "--cached-only", "--frozen", "--entrypoint", ...RELEASE_FILES.entries], {
      cwd: dir,
      env,
    });
    const out = await new Deno.Command(`${dir}/bin/portal-launcher`, {
      args: ["version"],
      env: { ...env, DENO: Deno.execPath() },
      stdout: "piped",
      stderr: "piped",
    }).output();
    const version = new TextDecoder().decode(out.stdout).trim();
    if (!out.success || !/^\d+\.\d+\.\d+/.test(version)) {
      throw new Error(`bin/portal-launcher version: ${new TextDecoder().decode(out.stderr)}`);
    }
  } finally {
    await Deno.remove(denoDir, { recursive: true });
  }
}

/** Writes the release into `out`; answers its version, size and how long it took. */
export async function writeRelease(
  out: string,
  options: { build?: boolean; say?: (line: string) => void } = {},
): Promise<{ version: string; bytes: number; files: number; ms: number }> {
  const say = options.say ?? print;
  const started = performance.now();
  if (options.build !== false) {
    say("building the widget (tools/build.ts) ...");
    await run(["run", "--allow-all", "tools/build.ts"], { cwd: ROOT });
  }
  await Deno.remove(out, { recursive: true }).catch((err) => {
    if (!(err instanceof Deno.errors.NotFound)) throw err;
  });
  say(`copying the server, tools and widget into ${out} ...`);
  for (const dir of RELEASE_FILES.dirs) await copyTree(`${ROOT}${dir}`, `${out}/${dir}`);
  for (const file of RELEASE_FILES.files) {
    await Deno.mkdir(`${out}/${file.split("/").slice(0, -1).join("/")}`, { recursive: true });
    await Deno.copyFile(`${ROOT}${file}`, `${out}/${file}`);
  }
  await Deno.mkdir(`${out}/bin`);
  await Deno.copyFile(`${ROOT}deploy/bin/portal-launcher`, `${out}/bin/portal-launcher`);
  await Deno.chmod(`${out}/bin/portal-launcher`, 0o755);
  const config = await releaseConfig();
  await Deno.writeTextFile(`${out}/deno.json`, JSON.stringify(config, null, 2) + "\n");
  const deno = Deno.version.deno;
  const commit = await new Deno.Command("git", { args: ["rev-parse", "HEAD"], cwd: ROOT })
    .output().then((o) => new TextDecoder().decode(o.stdout).trim(), () => "");
  await Deno.writeTextFile(
    `${out}/release.json`,
    JSON.stringify(
      { version: config.version, deno, commit, built: new Date().toISOString() },
      null,
      2,
    ) +
      "\n",
  );
  // The repository's lock pins every version; `deno install` keeps only the release's packages.
  await Deno.copyFile(`${ROOT}deno.lock`, `${out}/deno.lock`);
  say(`vendoring npm packages (${Object.keys(config.imports as object).length} imports) ...`);
  await run(["install", "--entrypoint", ...RELEASE_FILES.entries], { cwd: out });
  say("checking that it loads with an empty DENO_DIR and no registry ...");
  await checkOffline(out);
  const size = await treeSize(out);
  return { version: String(config.version), ...size, ms: performance.now() - started };
}

/** `deno compile` of the release directory into one executable; needs denort (DENORT_BIN). */
async function compile(dir: string, output: string): Promise<void> {
  const includes = COMPILE_INCLUDES.flatMap((path) => ["--include", path]);
  await run([
    "compile",
    "--cached-only",
    "--frozen",
    "--no-check",
    "--config",
    "deno.json",
    "--allow-net",
    "--allow-env",
    "--allow-read",
    "--allow-write",
    "--allow-sys",
    "--v8-flags=--max-semi-space-size=8,--max-old-space-size=128",
    ...includes,
    "--output",
    output,
    "tools/cli.ts",
  ], { cwd: dir });
}

if (import.meta.main) {
  const args = [...Deno.args];
  const at = args.indexOf("--out");
  const given = at >= 0 ? args.splice(at, 2)[1] : `${ROOT}dist/portal-launcher`;
  const out = given && new URL(given, `file://${Deno.cwd()}/`).pathname.replace(/\/$/, "");
  const wantCompile = args.includes("--compile");
  if (!out || args.some((a) => a !== "--compile")) {
    console.error("usage: deno task release [--out dir] [--compile]");
    Deno.exit(2);
  }
  try {
    const done = await writeRelease(out);
    print(
      `wrote ${out}: version ${done.version}, ${(done.bytes / 1_048_576).toFixed(1)} MB in ` +
        `${done.files} files, in ${(done.ms / 1000).toFixed(1)} s. Start it with ` +
        `${out}/bin/portal-launcher (only Deno ${Deno.version.deno} needed, no network).`,
    );
    if (wantCompile) {
      const output = `${out}-${done.version}-${Deno.build.target}`;
      print(
        `compiling ${output} (denort: ${Deno.env.get("DENORT_BIN") ?? "downloaded by Deno"}) ...`,
      );
      await compile(out, output);
      print(`wrote ${output}, ${((await Deno.stat(output)).size / 1_048_576).toFixed(1)} MB`);
    }
  } catch (err) {
    console.error(`release: ${err instanceof Error ? err.message : err}`);
    Deno.exit(1);
  }
}
