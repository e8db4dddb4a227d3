/**
 * `deno task release`: the directory it writes, copied away from the checkout, runs with only
 * Deno: an empty DENO_DIR, the npm registry and any proxy unreachable. The systemd unit's and the
 * Dockerfile's commands are run against it as they would run it; the unit is checked with
 * `systemd-analyze verify` and compose.yaml with `docker-compose config` where those exist.
 */
import assert from "node:assert/strict";
import { NO_REGISTRY, treeSize, writeRelease } from "../../tools/release.ts";
import { VERSION } from "../../server/config.ts";
import { ensureWidgetBuilt } from "../helpers/widget.ts";
import { freePort, startRecordOf } from "../helpers/process.ts";
import { signLaunch } from "../helpers/launch.ts";
import { launchPayload } from "../helpers/payload.ts";

const opts = { sanitizeOps: false, sanitizeResources: false };
const ROOT = new URL("../../", import.meta.url).pathname;
const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
/** Every command of these tests is stopped after this long: a hang fails instead of waiting. */
const limit = () => AbortSignal.timeout(60_000);

let built: Promise<{ dir: string; ms: number }> | undefined;

/** The release, written once per test process into a temporary directory removed at exit. */
function release(): Promise<{ dir: string; ms: number }> {
  built ??= (async () => {
    await ensureWidgetBuilt();
    const work = await Deno.makeTempDir({ prefix: "pl-release-build-" });
    globalThis.addEventListener("unload", () => Deno.removeSync(work, { recursive: true }));
    const started = performance.now();
    await writeRelease(`${work}/portal-launcher`, { build: false, say: () => {} });
    return { dir: `${work}/portal-launcher`, ms: performance.now() - started };
  })();
  return built;
}

/** Copies a tree as `cp -a` would: symbolic links stay links (node_modules/ has relative ones). */
async function copyTree(from: string, to: string): Promise<void> {
  await Deno.mkdir(to, { recursive: true });
  for await (const entry of Deno.readDir(from)) {
    const [a, b] = [`${from}/${entry.name}`, `${to}/${entry.name}`];
    if (entry.isSymlink) await Deno.symlink(await Deno.readLink(a), b);
    else if (entry.isDirectory) await copyTree(a, b);
    else await Deno.copyFile(a, b);
  }
}

async function filesUnder(dir: string, out: string[] = []): Promise<string[]> {
  for await (const entry of Deno.readDir(dir)) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory) await filesUnder(path, out);
    else out.push(path);
  }
  return out;
}

/** A machine with only Deno: a copy of the release under `root`, and empty home and caches. */
async function airGapped(): Promise<{ root: string; env: Record<string, string> }> {
  const { dir } = await release();
  const root = await Deno.makeTempDir({ prefix: "pl-release-" });
  try {
    return await install(dir, root);
  } catch (err) {
    await Deno.remove(root, { recursive: true });
    throw err;
  }
}

async function install(
  dir: string,
  root: string,
): Promise<{ root: string; env: Record<string, string> }> {
  await copyTree(dir, `${root}/opt/portal-launcher`);
  for (const d of ["home", "var/lib/portal-launcher", "var/cache/portal-launcher"]) {
    await Deno.mkdir(`${root}/${d}`, { recursive: true });
  }
  // Nothing in the copy may point back at the checkout or the directory it was written in.
  const back: string[] = [];
  for (const path of await filesUnder(`${root}/opt/portal-launcher`)) {
    const link = await Deno.lstat(path).then((s) => s.isSymlink ? Deno.readLink(path) : null);
    if (link?.startsWith("/")) back.push(`${path} -> ${link}`);
    if (link) continue;
    const text = decode(await Deno.readFile(path));
    if (text.includes(dir) || text.includes(ROOT)) back.push(path);
  }
  assert.deepEqual(back, [], "the release is self-contained");
  const unreachable = "http://127.0.0.1:9";
  return {
    root,
    env: {
      PATH: `${Deno.execPath().replace(/\/[^/]+$/, "")}:/usr/bin:/bin`,
      HOME: `${root}/home`,
      DENO_DIR: `${root}/var/cache/portal-launcher`,
      NPM_CONFIG_REGISTRY: NO_REGISTRY,
      HTTP_PROXY: unreachable,
      HTTPS_PROXY: unreachable,
      NO_PROXY: "127.0.0.1",
      DENO_NO_UPDATE_CHECK: "1",
      LOG_LEVEL: "warn",
    },
  };
}

/** Paths of an installed system (/opt, /var) moved under `root`. */
function under(root: string, text: string): string {
  return text.replace(/(^|[\s="'])\/(opt|var)\//g, `$1${root}/$2/`);
}

interface Started {
  process: Deno.ChildProcess;
  port: number;
  output: () => string;
}

/** Runs `command` (a path and arguments) with `env` only; resolves once it listens. */
async function serve(command: string[], env: Record<string, string>): Promise<Started> {
  const port = Number(env.PORT);
  const process = new Deno.Command(command[0], {
    args: command.slice(1),
    env,
    clearEnv: true,
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  let text = "";
  const pump = async (stream: ReadableStream<Uint8Array>) => {
    for await (const chunk of stream) text += new TextDecoder().decode(chunk);
  };
  pump(process.stdout);
  pump(process.stderr);
  const deadline = Date.now() + 45_000;
  while (!/"msg":"listening"|listening on/.test(text)) {
    const status = await Promise.race([
      process.status,
      new Promise<null>((r) => setTimeout(() => r(null), 50)),
    ]);
    if (status) throw new Error(`exited with ${status.code}:\n${text}`);
    if (Date.now() > deadline) {
      process.kill("SIGKILL");
      throw new Error(`no start within 45 s:\n${text}`);
    }
  }
  return { process, port, output: () => text };
}

/** SIGTERM, as systemd and Docker stop it; SIGKILL after 20 s so that a hang fails the test. */
async function stop(started: Started): Promise<number> {
  started.process.kill("SIGTERM");
  const killer = setTimeout(() => started.process.kill("SIGKILL"), 20_000);
  const { code } = await started.process.status;
  clearTimeout(killer);
  return code;
}

/** `KEY=value` lines of a systemd unit's [Service] section, by key (repeated keys in order). */
function unitSettings(text: string): Map<string, string[]> {
  const settings = new Map<string, string[]>();
  for (const line of text.split("\n")) {
    const m = /^([A-Za-z]+)=(.*)$/.exec(line.trim());
    if (m) settings.set(m[1], [...(settings.get(m[1]) ?? []), m[2]]);
  }
  return settings;
}

const UNIT = `${ROOT}deploy/portal-launcher.service`;

Deno.test({
  name: "release: copied away, the systemd unit's command migrates, starts offline, launches " +
    "and reads the session",
  ...opts,
  async fn() {
    const { root, env } = await airGapped();
    try {
      const bin = `${root}/opt/portal-launcher/bin/portal-launcher`;
      const settings = unitSettings(under(root, await Deno.readTextFile(UNIT)));
      const unitEnv = Object.fromEntries(
        settings.get("Environment")!.map((
          e,
        ) => [e.slice(0, e.indexOf("=")), e.slice(e.indexOf("=") + 1)]),
      );
      const port = freePort();
      const all = { ...env, ...unitEnv, PORT: String(port) };
      const migrate = async (...args: string[]) => {
        const out = await new Deno.Command(bin, {
          signal: limit(),
          args: ["migrate", ...args],
          env: all,
          clearEnv: true,
        })
          .output();
        return { code: out.code, text: decode(out.stdout) + decode(out.stderr) };
      };
      const check = await migrate("--check");
      assert.equal(check.code, 1, check.text);
      assert.match(check.text, /migrations pending/);
      const applied = await migrate();
      assert.equal(applied.code, 0, applied.text);
      assert.match(applied.text, new RegExp(`recorded release ${VERSION.replaceAll(".", "\\.")}`));

      const [execStart] = settings.get("ExecStart")!;
      assert.equal(execStart, `${bin} serve`);
      const started = await serve(execStart.split(" "), { ...all, MIGRATE_ON_START: "false" });
      try {
        // Not a terminal: the start is one JSON record, with the version and the demo's secrets.
        const record = startRecordOf(started.output());
        assert.equal(record.version, VERSION);
        const base = `http://127.0.0.1:${port}`;
        assert.deepEqual(await (await fetch(`${base}/healthz`)).json(), {
          status: "ok",
          version: VERSION,
        });
        const widget = await fetch(`${base}/portal/widget/portal-launcher.js`);
        assert.equal(widget.status, 200, "the built widget is in the release");
        assert.match(await widget.text(), /customElements/);
        const { apiKey, clientId, clientSecret } = record.demo;
        const launch = await fetch(`${base}/portal/api/auth/app/demo`, {
          method: "POST",
          headers: { Accept: "application/json" },
          body: new URLSearchParams({
            signed_request: await signLaunch(launchPayload({ contactLastName: "Offline" }), apiKey),
          }),
        });
        const landed = await launch.json();
        assert.equal(launch.status, 200, JSON.stringify(landed));
        const token = await (await fetch(`${base}/api/v1/oauth2/token`, {
          method: "POST",
          headers: { Authorization: `Basic ${btoa(`${clientId}:${clientSecret}`)}` },
          body: new URLSearchParams({ grant_type: "client_credentials" }),
        })).json();
        const session = await fetch(`${base}/api/v1/sessions/${landed.sessionId}`, {
          headers: { Authorization: `Bearer ${token.access_token}` },
        });
        const body = await session.json();
        assert.equal(session.status, 200, JSON.stringify(body));
        assert.equal(body.id, landed.sessionId);
        assert.match(JSON.stringify(body), /Offline/);
      } finally {
        assert.equal(await stop(started), 0, started.output());
      }
      const npmCache = await treeSize(`${env.DENO_DIR}/npm`).catch(() => ({ files: 0 }));
      assert.equal(npmCache.files, 0, "no npm package was fetched into DENO_DIR");
    } finally {
      await Deno.remove(root, { recursive: true });
    }
  },
});

/** The Dockerfile's instructions this test runs: COPY's destination, ENV, the commands. */
function dockerfile(text: string) {
  const lines = text.replace(/\\\n/g, " ").split("\n").filter((l) => !l.startsWith("#"));
  const one = (word: string) => lines.find((l) => l.startsWith(`${word} `))?.slice(word.length + 1);
  const env: Record<string, string> = {};
  for (const line of lines.filter((l) => l.startsWith("ENV "))) {
    for (const m of line.slice(4).matchAll(/([A-Z_]+)=(\S+)/g)) env[m[1]] = m[2];
  }
  return {
    copy: one("COPY")!.split(" "),
    env,
    entrypoint: JSON.parse(one("ENTRYPOINT")!) as string[],
    cmd: JSON.parse(one("CMD")!) as string[],
    healthcheck: JSON.parse(/CMD (\[.*\])$/.exec(one("HEALTHCHECK")!)![1]) as string[],
  };
}

Deno.test({
  name: "release: the Dockerfile's command and health check run the copied release offline",
  ...opts,
  async fn() {
    const image = dockerfile(await Deno.readTextFile(`${ROOT}Dockerfile`));
    assert.deepEqual(image.copy, ["dist/portal-launcher", "/opt/portal-launcher"]);
    const { root, env } = await airGapped();
    try {
      const port = freePort();
      const imageEnv = Object.fromEntries(
        Object.entries(image.env).map(([k, v]) => [k, under(root, v)]),
      );
      assert.equal(imageEnv.HOST, "0.0.0.0");
      const started = await serve(
        [...image.entrypoint, ...image.cmd].map((part) => under(root, part)),
        { ...env, ...imageEnv, HOST: "127.0.0.1", PORT: String(port) },
      );
      try {
        const [deno, ...args] = image.healthcheck;
        const probe = (target: number) =>
          new Deno.Command(deno === "deno" ? Deno.execPath() : deno, {
            signal: limit(),
            args: args.map((a) => a.replace(":8000/", `:${target}/`)),
            env: { ...env, DENO_DIR: imageEnv.DENO_DIR },
            clearEnv: true,
          }).output();
        assert.equal((await probe(port)).code, 0, "healthy");
        assert.notEqual((await probe(freePort())).code, 0, "the probe fails with nothing there");
      } finally {
        assert.equal(await stop(started), 0, started.output());
      }
    } finally {
      await Deno.remove(root, { recursive: true });
    }
  },
});

Deno.test({
  name: "release: with a vendored package missing it refuses to start rather than fetch it",
  ...opts,
  async fn() {
    const { root, env } = await airGapped();
    try {
      const vendored = `${root}/opt/portal-launcher/node_modules/.deno`;
      const hono = [...Deno.readDirSync(vendored)].find((e) => e.name.startsWith("hono@"))!;
      await Deno.remove(`${vendored}/${hono.name}`, { recursive: true });
      const out = await new Deno.Command(`${root}/opt/portal-launcher/bin/portal-launcher`, {
        signal: limit(),
        env: { ...env, DATA_DIR: `${root}/var/lib/portal-launcher`, PORT: String(freePort()) },
        clearEnv: true,
      }).output();
      assert.notEqual(out.code, 0);
      assert.match(decode(out.stderr), /not found in cache: "hono", --cached-only/);
    } finally {
      await Deno.remove(root, { recursive: true });
    }
  },
});

const hasCommand = (name: string) =>
  new Deno.Command("sh", { args: ["-c", `command -v ${name}`], stdout: "null" }).outputSync()
    .success;

Deno.test({
  name: "release: systemd-analyze verify accepts the unit installed over the release",
  ignore: !hasCommand("systemd-analyze"),
  ...opts,
  async fn() {
    const { root } = await airGapped();
    try {
      const unit = `${root}/portal-launcher.service`;
      await Deno.writeTextFile(unit, under(root, await Deno.readTextFile(UNIT)));
      const out = await new Deno.Command("systemd-analyze", {
        args: ["verify", unit],
        signal: limit(),
      }).output();
      const text = decode(out.stdout) + decode(out.stderr);
      assert.equal(out.code, 0, text);
      assert.equal(text.trim(), "", "no warning either");
      await Deno.writeTextFile(
        unit,
        (await Deno.readTextFile(unit)).replace(/^(ExecStart=.*)\/bin\//m, "$1/nobin/"),
      );
      const broken = await new Deno.Command("systemd-analyze", {
        args: ["verify", unit],
        signal: limit(),
      }).output();
      assert.notEqual(broken.code, 0, "a unit whose command is missing fails the check");
    } finally {
      await Deno.remove(root, { recursive: true });
    }
  },
});

Deno.test({
  name: "release: docker-compose config accepts compose.yaml, with and without PgBouncer",
  ignore: !hasCommand("docker-compose"),
  ...opts,
  async fn() {
    const env = { POSTGRES_PASSWORD: "pw", SECRET_KEY: "k".repeat(40), PATH: "/usr/bin:/bin" };
    const config = async (args: string[], extra: Record<string, string> = {}) => {
      const out = await new Deno.Command("docker-compose", {
        signal: limit(),
        args: ["--file", `${ROOT}compose.yaml`, ...args, "config"],
        env: { ...env, ...extra },
        clearEnv: true,
      }).output();
      return { code: out.code, text: decode(out.stdout) + decode(out.stderr) };
    };
    const plain = await config([]);
    assert.equal(plain.code, 0, plain.text);
    assert.match(plain.text, /MIGRATE_ON_START: 'false'|MIGRATE_ON_START: "false"/);
    assert.match(plain.text, /image: edoburu\/pgbouncer:\S+\n\s+profiles:\n\s+- pgbouncer\n/);
    const pooled = await config(["--profile", "pgbouncer"], { DATABASE_HOST: "pgbouncer" });
    assert.equal(pooled.code, 0, pooled.text);
    assert.match(pooled.text, /POOL_MODE: transaction/);
    assert.match(pooled.text, /@pgbouncer:5432\/portal/);
    const unset = await config([], { SECRET_KEY: "" });
    assert.notEqual(unset.code, 0);
    assert.match(unset.text, /set SECRET_KEY/);
  },
});
