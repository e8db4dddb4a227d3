/**
 * `deno task bench [--quick]`: load benchmarks with wrk against the service on PostgreSQL, beside a
 * Hono hello-world measured in the same run. Writes test/bench/results/<date>.md.
 */
import postgres from "postgres";
import { signPayload } from "../../server/launch/signed_request.ts";
import { launchPayload } from "../helpers/payload.ts";
import { parseWrk, renderTable, type WrkResult } from "./wrk.ts";

const quick = Deno.args.includes("--quick");
const seconds = quick ? 3 : 15;
const root = new URL("../../", import.meta.url).pathname;
const databaseUrl = Deno.env.get("DATABASE_URL") ?? "postgres://postgres@127.0.0.1:5432/test";

async function have(command: string): Promise<boolean> {
  try {
    const out = await new Deno.Command(command, {
      args: ["--version"],
      stdout: "null",
      stderr: "null",
    })
      .output();
    return out.code === 0 || out.code === 1;
  } catch {
    return false;
  }
}

if (!(await have("wrk"))) {
  console.error(
    "wrk not found. Install it: sudo apt-get install -y wrk (Debian/Ubuntu), brew install wrk (macOS)",
  );
  Deno.exit(1);
}

function freePort(): number {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (l.addr as Deno.NetAddr).port;
  l.close();
  return port;
}

async function waitFor(url: string): Promise<void> {
  for (let i = 0; i < 300; i++) {
    try {
      const res = await fetch(url);
      await res.body?.cancel();
      if (res.ok) return;
    } catch { /* not up yet */ }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${url} did not come up`);
}

function spawn(args: string[], env: Record<string, string>): Deno.ChildProcess {
  return new Deno.Command(Deno.execPath(), {
    args,
    env,
    cwd: root,
    stdout: "null",
    stderr: "inherit",
  })
    .spawn();
}

async function wrk(name: string, url: string, connections: number, script?: string) {
  console.log(`  ${name}: ${connections} connections, ${seconds} s ...`);
  const args = ["-t2", `-c${connections}`, `-d${seconds}s`, "--latency", url];
  if (script) args.unshift("-s", script);
  const out = await new Deno.Command("wrk", { args, stdout: "piped", stderr: "piped" }).output();
  return parseWrk(new TextDecoder().decode(out.stdout), name, connections);
}

const admin = postgres(databaseUrl, { max: 1, onnotice: () => {} });
const dbName = `pl_bench_${Date.now()}`;
await admin.unsafe(`create database ${dbName}`);
const benchUrl = new URL(databaseUrl);
benchUrl.pathname = `/${dbName}`;
const tmp = await Deno.makeTempDir({ prefix: "pl-bench-" });
const children: Deno.ChildProcess[] = [];
const results: WrkResult[] = [];
try {
  console.log(`Benchmark (${quick ? "quick" : "full"}): ${seconds} s per case`);
  const helloPort = freePort();
  children.push(spawn(["run", "-A", "test/bench/hello.ts"], { PORT: String(helloPort) }));
  await waitFor(`http://127.0.0.1:${helloPort}/`);

  const port = freePort();
  const clientId = "bench";
  const clientSecret = "bench-secret-0123456789abcdefghijklmnopqrstuvwxyz";
  children.push(spawn(["run", "-A", "server/main.ts"], {
    PORT: String(port),
    DATABASE_URL: benchUrl.href,
    SECRET_KEY: "bench-secret-key-0123456789abcdefghijkl",
    BOOTSTRAP_CLIENT_ID: clientId,
    BOOTSTRAP_CLIENT_SECRET: clientSecret,
    DATA_DIR: tmp,
    LOG_LEVEL: "error",
  }));
  const base = `http://127.0.0.1:${port}`;
  await waitFor(`${base}/readyz`);

  const tokenBody =
    `grant_type=client_credentials&client_id=${clientId}&client_secret=${clientSecret}`;
  const tokenLua = `${tmp}/token.lua`;
  await Deno.writeTextFile(
    tokenLua,
    `wrk.method = "POST"\nwrk.body = "${tokenBody}"\n` +
      `wrk.headers["Content-Type"] = "application/x-www-form-urlencoded"\n`,
  );
  const tokenRes = await fetch(`${base}/api/v1/oauth2/token`, {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
    body: tokenBody,
  });
  const token = (await tokenRes.json()).access_token;
  const bearerLua = `${tmp}/bearer.lua`;
  await Deno.writeTextFile(bearerLua, `wrk.headers["Authorization"] = "Bearer ${token}"\n`);

  // One launched session to read back through the REST API.
  const appRes = await fetch(`${base}/api/v1/admin/apps`, {
    method: "POST",
    headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
    body: JSON.stringify({ appName: "bench", name: "Bench", authType: "signed_request" }),
  });
  const app = await appRes.json();
  const launched = await fetch(`${base}/portal/api/auth/app/bench`, {
    method: "POST",
    headers: { Accept: "application/json" },
    body: new URLSearchParams({
      signed_request: await signPayload(
        JSON.stringify(launchPayload({ deviceComputer: { name: "PC", serial: "S1" } })),
        app.apiKey,
      ),
    }),
  });
  const { sessionId } = await launched.json();

  results.push(await wrk("hello-world", `http://127.0.0.1:${helloPort}/`, 64));
  results.push(await wrk("token issuance", `${base}/api/v1/oauth2/token`, 16, tokenLua));
  results.push(
    await wrk("bearer GET field-settings", `${base}/api/v1/admin/field-settings`, 64, bearerLua),
  );

  results.push(
    await wrk("GET /api/v1/sessions/:id", `${base}/api/v1/sessions/${sessionId}`, 64, bearerLua),
  );

  const table = renderTable(results, {
    "GET /api/v1/sessions/:id": ["hello-world", "hello-world"],
    "bearer GET field-settings": ["hello-world", "hello-world"],
    "token issuance": ["hello-world", "hello-world"],
  });
  const cpu = (await Deno.readTextFile("/proc/cpuinfo").catch(() => ""))
    .match(/model name\s*:\s*(.*)/)?.[1] ?? "unknown CPU";
  const header =
    `Machine: ${navigator.hardwareConcurrency} cores, ${cpu}; Deno ${Deno.version.deno}; ` +
    `wrk -t2, ${seconds} s per case; server and load generator on the same machine.`;
  console.log(`\n${header}\n\n${table}`);
  const date = new Date().toISOString().slice(0, 10);
  await Deno.mkdir(`${root}test/bench/results`, { recursive: true });
  await Deno.writeTextFile(
    `${root}test/bench/results/${date}.md`,
    `# Benchmark ${date}\n\n${header}\n\n${table}\n`,
  );
  console.log(`\nwritten to test/bench/results/${date}.md`);
} finally {
  for (const child of children) {
    try {
      child.kill("SIGTERM");
      await child.status;
    } catch { /* already gone */ }
  }
  await admin.unsafe(`drop database if exists ${dbName} with (force)`);
  await admin.end();
  await Deno.remove(tmp, { recursive: true });
}
