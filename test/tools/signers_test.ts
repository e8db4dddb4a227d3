/**
 * The host-backend signers of signers/ (docs/signers.md): each one whose runtime this machine has
 * reproduces every shared test vector byte for byte, and the signed_request it makes with fresh
 * replay fields (issuedAt, nonce) launches a session once. A missing runtime skips its tests and
 * says which Debian package installs it (.ci/run installs those it can).
 */
import assert from "node:assert/strict";
import { pglite } from "../helpers/db.ts";
import { createTestApp, type TestApp } from "../helpers/launch.ts";
import { type Json, launchPayload } from "../helpers/payload.ts";
import { startTestService, type TestService } from "../helpers/service.ts";
import { sharedFixture } from "../helpers/shared.ts";

interface Vector {
  name: string;
  apiKey: string;
  payloadJson: string;
  encodedPayload: string;
  signedRequest: string;
}

const VECTORS: Vector[] = JSON.parse(
  await Deno.readTextFile(new URL("../fixtures/signed_request.json", import.meta.url)),
).cases;
const SIGNERS = new URL("../../signers/", import.meta.url).pathname;
/** Bound of one compile or signing run. */
const TIMEOUT_MS = 60_000;

/** One signer: the runtime it needs, and how to turn its source into a command. */
interface Signer {
  language: string;
  /** The Debian package that installs the runtime. */
  debian: string;
  /** Commands that must run for the signer to be tested; the first one's output names the version. */
  probes: string[][];
  /** Compiles the source into `dir` when the language needs it; returns the command that signs. */
  prepare(dir: string): Promise<string[]>;
}

const SIGNER_LIST: Signer[] = [
  {
    language: "Python",
    debian: "python3",
    probes: [["python3", "--version"]],
    prepare: () => Promise.resolve(["python3", `${SIGNERS}python/sign_request.py`]),
  },
  {
    language: "Java",
    debian: "openjdk-17-jdk-headless",
    probes: [["java", "-version"], ["javac", "-version"]],
    async prepare(dir) {
      await run(["javac", "-d", dir, `${SIGNERS}java/SignRequest.java`]);
      return ["java", "-cp", dir, "SignRequest"];
    },
  },
  {
    language: "PHP",
    debian: "php-cli",
    probes: [["php", "--version"]],
    prepare: () => Promise.resolve(["php", `${SIGNERS}php/sign_request.php`]),
  },
  {
    language: "Go",
    debian: "golang-go",
    probes: [["go", "version"]],
    async prepare(dir) {
      // The build cache stays where Go keeps it (warm on the next run), or in dir without a HOME.
      const env: Record<string, string> = Deno.env.get("HOME") || Deno.env.get("GOCACHE")
        ? {}
        : { GOCACHE: `${dir}/go-cache` };
      await run(["go", "build", "-o", `${dir}/sign_request`, `${SIGNERS}go/sign_request.go`], {
        env,
      });
      return [`${dir}/sign_request`];
    },
  },
  {
    language: "Ruby",
    debian: "ruby",
    probes: [["ruby", "--version"]],
    prepare: () => Promise.resolve(["ruby", `${SIGNERS}ruby/sign_request.rb`]),
  },
  {
    language: "C#",
    debian: "mono-mcs",
    probes: [["mono", "--version"], ["mcs", "--version"]],
    async prepare(dir) {
      await run(["mcs", `-out:${dir}/SignRequest.exe`, `${SIGNERS}csharp/SignRequest.cs`]);
      return ["mono", `${dir}/SignRequest.exe`];
    },
  },
];

/** Runs a command (stdin given or empty) within TIMEOUT_MS; throws unless it exits 0. */
async function run(
  command: string[],
  opts: { stdin?: string; env?: Record<string, string> } = {},
): Promise<string> {
  const child = new Deno.Command(command[0], {
    args: command.slice(1),
    env: opts.env,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
    signal: AbortSignal.timeout(TIMEOUT_MS),
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(opts.stdin ?? ""));
  await writer.close();
  const out = await child.output();
  const stdout = new TextDecoder().decode(out.stdout);
  if (!out.success) {
    throw new Error(
      `${command.join(" ")}: exit ${out.code}\n${new TextDecoder().decode(out.stderr)}`,
    );
  }
  return stdout;
}

/** The runtime and its version (`php 8.2.36`), or null when one of the probes does not run. */
async function version(signer: Signer): Promise<string | null> {
  let first: string | null = null;
  for (const [cmd, ...args] of signer.probes) {
    try {
      const out = await new Deno.Command(cmd, { args, stdout: "piped", stderr: "piped" }).output();
      if (!out.success) return null;
      const text = new TextDecoder().decode(out.stdout) || new TextDecoder().decode(out.stderr);
      first ??= `${cmd} ${text.match(/\d+\.\d+[.\d]*/)?.[0] ?? "(version unknown)"}`;
    } catch (err) {
      if (err instanceof Deno.errors.NotFound) return null;
      throw err;
    }
  }
  return first;
}

let workDir: Promise<string> | undefined;
const commands = new Map<Signer, Promise<string[]>>();
Deno.test.afterAll(async () => {
  if (workDir) await Deno.remove(await workDir, { recursive: true });
});

/** The signer's command, compiled once per test run in a temporary directory. */
function commandOf(signer: Signer): Promise<string[]> {
  let command = commands.get(signer);
  if (!command) {
    command = (async () => {
      const dir = await Deno.makeTempDir({ dir: await (workDir ??= Deno.makeTempDir()) });
      return await signer.prepare(dir);
    })();
    commands.set(signer, command);
  }
  return command;
}

/** The signer's output for `payload`: exactly as given (no replay fields added) or fresh. */
async function sign(
  signer: Signer,
  payload: string,
  apiKey: string,
  mode: "exact" | "fresh",
): Promise<string> {
  const command = [...await commandOf(signer), ...(mode === "exact" ? ["--exact"] : [])];
  return (await run(command, { stdin: payload, env: { PORTAL_API_KEY: apiKey } })).trim();
}

/** The JSON payload inside a signed_request. */
function payloadOf(signedRequest: string): Json {
  const encoded = signedRequest.slice(signedRequest.indexOf(".") + 1);
  return JSON.parse(
    new TextDecoder().decode(Uint8Array.from(atob(encoded), (c) => c.charCodeAt(0))),
  );
}

const service = sharedFixture(async () => {
  const svc = await startTestService(pglite, {}, {}, { deliveryWorker: false });
  const app = await createTestApp(svc, await svc.adminToken(), "signers");
  return { svc, app };
}, ({ svc }) => svc.close());

/** Posts the form field signed_request, percent-encoded, asking for JSON. */
async function launch(svc: TestService, app: TestApp, signedRequest: string): Promise<Response> {
  return await svc.request(`/portal/api/auth/app/${app.appName}`, {
    method: "POST",
    headers: { Accept: "application/json" },
    body: new URLSearchParams({ signed_request: signedRequest }),
  });
}

const versions = await Promise.all(SIGNER_LIST.map(version));

for (const [i, signer] of SIGNER_LIST.entries()) {
  const runtime = versions[i];
  const ignore = runtime === null;
  const label = `signer ${signer.language}${runtime ? ` (${runtime})` : ""}`;
  if (ignore) {
    console.warn(
      `${label}: runtime not found, its tests are skipped (apt-get install -y ${signer.debian})`,
    );
  }
  const test = (name: string, fn: () => Promise<void>) =>
    Deno.test({
      name: `${label} ${name}${ignore ? ` [skipped: apt-get install -y ${signer.debian}]` : ""}`,
      ignore,
      sanitizeOps: false,
      sanitizeResources: false,
      fn,
    });

  test("reproduces every vector of test/fixtures/signed_request.json byte for byte", async () => {
    for (const v of VECTORS) {
      assert.equal(await sign(signer, v.payloadJson, v.apiKey, "exact"), v.signedRequest, v.name);
    }
  });

  test("signed with another key, gives the same payload and another signature", async () => {
    const v = VECTORS[0];
    const wrongKey = v.apiKey.slice(0, -1) + (v.apiKey.endsWith("A") ? "B" : "A");
    const signed = await sign(signer, v.payloadJson, wrongKey, "exact");
    assert.equal(signed.slice(signed.indexOf(".") + 1), v.encodedPayload);
    assert.notEqual(signed, v.signedRequest);
  });

  test("adds issuedAt and a nonce, and its signed_request launches once", async () => {
    const { svc, app } = await service();
    const payload = launchPayload(
      { referenceNumber: `SIGNER-${signer.language.replace("#", "sharp")}` },
      { first_name: "Zoë" },
    );
    const first = await sign(signer, JSON.stringify(payload), app.apiKey, "fresh");
    const second = await sign(signer, JSON.stringify(payload), app.apiKey, "fresh");
    const signed = payloadOf(first);
    assert.ok(Math.abs(signed.issuedAt - Date.now() / 1000) < 60, `issuedAt ${signed.issuedAt}`);
    assert.ok(Number.isInteger(signed.issuedAt), "issuedAt is whole seconds");
    assert.match(signed.nonce, /^[A-Za-z0-9_-]{16,128}$/);
    assert.notEqual(payloadOf(second).nonce, signed.nonce, "a new nonce every time");
    const { issuedAt: _i, nonce: _n, ...rest } = signed;
    assert.deepEqual(rest, payload, "the payload as given, UTF-8 names intact");

    const res = await launch(svc, app, first);
    const body = await res.json();
    assert.equal(res.status, 200, JSON.stringify(body));
    assert.ok(Number.isInteger(body.sessionId) && body.sessionId > 0, JSON.stringify(body));
    assert.deepEqual(body.warnings, []);
    const again = await launch(svc, app, first);
    assert.equal(again.status, 401);
    assert.equal((await again.json()).code, "launch_replayed");
  });
}

Deno.test("docs/signers.md quotes each signer's code exactly as signers/ has it", async () => {
  const doc = await Deno.readTextFile(new URL("../../docs/signers.md", import.meta.url));
  const files: Record<string, string> = {
    python: "python/sign_request.py",
    java: "java/SignRequest.java",
    php: "php/sign_request.php",
    go: "go/sign_request.go",
    ruby: "ruby/sign_request.rb",
    csharp: "csharp/SignRequest.cs",
  };
  const quoted = [...doc.matchAll(/^```(\w+)\n([\s\S]*?)\n```$/gm)]
    .filter(([, lang]) => lang in files);
  assert.deepEqual(quoted.map(([, lang]) => lang).sort(), Object.keys(files).sort());
  for (const [, lang, code] of quoted) {
    const source = await Deno.readTextFile(`${SIGNERS}${files[lang]}`);
    assert.ok(source.includes(code), `docs/signers.md's ${lang} block differs from ${files[lang]}`);
    assert.match(code, /issuedAt/, `the ${lang} block shows the replay fields`);
  }
});
