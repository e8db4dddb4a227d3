/**
 * `deno task serve` (server/serve.ts), PostgreSQL only: it listens where its flags say (over
 * HOST/PORT), logs JSON lines only, and SIGTERM drains and stops every process with exit 0.
 */
import assert from "node:assert/strict";
import { postgresBackend, TEST_DATABASE_URL } from "../../helpers/db.ts";
import { FLAGS, freePort } from "../../helpers/process.ts";
import { poolShares, PROCESS_ARGS } from "../../../server/ops/supervisor.ts";
import { RawConnection } from "../../helpers/raw_http.ts";
import { waitUntil } from "../../helpers/crm_server.ts";
import { type Prepared, prepareDatabase } from "./fixture.ts";

const ROOT = new URL("../../../", import.meta.url).pathname;

/** True when `hostname`:`port` refuses a connection. */
async function refuses(hostname: string, port: number): Promise<boolean> {
  try {
    (await Deno.connect({ hostname, port })).close();
    return false;
  } catch (err) {
    if (err instanceof Deno.errors.ConnectionRefused) return true;
    throw err;
  }
}

async function get(port: number, path: string) {
  const conn = await RawConnection.open(port);
  try {
    return await conn.get(path);
  } finally {
    conn.close();
  }
}

Deno.test("deno task serve: its processes run with deno task start's permissions and heap caps", async () => {
  const start = JSON.parse(await Deno.readTextFile(`${ROOT}deno.json`)).tasks.start.command;
  const v8 = start.split(" ").filter((w: string) => w.startsWith("--v8-flags="));
  const own = PROCESS_ARGS.filter((a) => a.startsWith("--allow-") || a.startsWith("--v8-flags="));
  assert.deepEqual(own, [...FLAGS, ...v8]);
  assert.ok(PROCESS_ARGS.includes("--unstable-net"), "reusePort needs it");
});

Deno.test("deno task serve: the processes share DATABASE_POOL_SIZE, one connection at least", () => {
  assert.deepEqual(poolShares(10, 1), [10]);
  assert.deepEqual(poolShares(10, 2), [5, 5]);
  assert.deepEqual(poolShares(10, 3), [4, 3, 3]);
  assert.deepEqual(poolShares(7, 4), [2, 2, 2, 1]);
  assert.deepEqual(poolShares(4, 4), [1, 1, 1, 1]);
  assert.deepEqual(poolShares(2, 4), [1, 1, 1, 1]);
  for (let total = 1; total <= 40; total++) {
    for (let count = 1; count <= total; count++) {
      const shares = poolShares(total, count);
      assert.equal(shares.reduce((a, b) => a + b), total, `${total} on ${count}`);
      assert.ok(Math.max(...shares) - Math.min(...shares) <= 1, `${total} on ${count}`);
    }
  }
});

/** The value of the gauge `name` in the Prometheus text `text`. */
function gauge(text: string, name: string): number {
  const line = text.split("\n").find((l) => l.startsWith(`${name} `));
  assert.ok(line, `${name} in /metrics`);
  return Number(line.split(" ")[1]);
}

/** `portal_db_pool_size` of the /metrics of `count` processes from port `first` up, sorted. */
async function poolSizes(first: number, count: number): Promise<number[]> {
  const sizes: number[] = [];
  for (let at = first; at < first + count; at++) {
    const res = await fetch(`http://127.0.0.1:${at}/metrics`);
    sizes.push(gauge(await res.text(), "portal_db_pool_size"));
  }
  return sizes.sort((a, b) => a - b);
}

/** A child's stdout and stderr, gathered as they come; `done` once both have ended. */
function collect(child: Deno.ChildProcess) {
  const text = { stdout: "", stderr: "" };
  const pump = async (stream: ReadableStream<Uint8Array>, key: keyof typeof text) => {
    const decoder = new TextDecoder();
    for await (const c of stream) text[key] += decoder.decode(c, { stream: true });
  };
  return { text, done: Promise.all([pump(child.stdout, "stdout"), pump(child.stderr, "stderr")]) };
}

/** The JSON records among the whole lines of `text` (a line still being written is left out). */
// deno-lint-ignore no-explicit-any
function jsonRecords(text: string): Record<string, any>[] {
  return text.split("\n").slice(0, -1).filter((l) => l.startsWith("{")).map((l) => JSON.parse(l));
}

/** server/serve.ts run directly (its children are the processes) on `dbEnv`, with `env` added. */
function runServe(
  dbEnv: Record<string, string>,
  port: number,
  env: Record<string, string>,
  output: "piped" | "quiet",
  flags: string[] = [],
): Deno.ChildProcess {
  return new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-env", "--allow-read", "--allow-run", "server/serve.ts", ...flags],
    cwd: ROOT,
    env: {
      HOME: Deno.env.get("HOME") ?? "/tmp",
      ...dbEnv,
      PORT: String(port),
      SHUTDOWN_DRAIN_MS: "200",
      SHUTDOWN_TIMEOUT_MS: "3000",
      ...env,
    },
    clearEnv: true,
    stdout: output === "piped" ? "piped" : "null",
    stderr: output === "piped" ? "piped" : "inherit",
  }).spawn();
}

/** A test of serve on a database of its own (PostgreSQL only: skipped without it). */
function serveTest(name: string, fn: (db: Prepared) => Promise<void>): void {
  Deno.test({
    name,
    ignore: !TEST_DATABASE_URL,
    sanitizeOps: false,
    sanitizeResources: false,
    async fn() {
      const db = await prepareDatabase(postgresBackend);
      try {
        await fn(db);
      } finally {
        await db.close();
      }
    },
  });
}

/** SIGKILL to `child` unless it has exited; resolves once it has. */
async function killed(child: Deno.ChildProcess): Promise<void> {
  try {
    child.kill("SIGKILL");
  } catch { /* exited */ }
  await child.status;
}

serveTest(
  "deno task serve: --host/--port win, JSON lines only, SIGTERM drains every process",
  async (db) => {
    const port = freePort();
    const envPort = freePort();
    const metricsPort = freePort();
    const child = new Deno.Command(Deno.execPath(), {
      args: ["task", "serve", "--host", "127.0.0.1", "--port", String(port), "--processes", "2"],
      cwd: ROOT,
      env: {
        HOME: Deno.env.get("HOME") ?? "/tmp",
        PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
        ...db.env,
        // What the flags must override: another address and port.
        HOST: "127.0.0.2",
        PORT: String(envPort),
        LOG_LEVEL: "info",
        SHUTDOWN_DRAIN_MS: "1000",
        SHUTDOWN_TIMEOUT_MS: "6000",
        // Shared by the two processes: 4 and 3 connections, each process's /metrics says.
        DATABASE_POOL_SIZE: "7",
        METRICS_PORT: String(metricsPort),
      },
      clearEnv: true,
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    const { text, done: pumped } = collect(child);
    const lines = () => text.stdout.split("\n").filter((line) => line);
    const count = (msg: string) => lines().filter((l) => l.includes(`"msg":"${msg}"`)).length;
    try {
      await waitUntil(() => count("listening") === 2, "two processes listening", 60_000);
      for (let i = 0; i < 6; i++) assert.equal((await get(port, "/healthz")).status, 200);
      assert.ok(await refuses("127.0.0.2", port), "not bound beyond 127.0.0.1");
      assert.ok(await refuses("127.0.0.1", envPort), "PORT lost to --port");
      assert.ok(await refuses("127.0.0.2", envPort), "HOST lost to --host");
      assert.deepEqual(await poolSizes(metricsPort, 2), [3, 4]);
      const starting = lines().map((l) => JSON.parse(l)).find((r) =>
        r.msg === "serve: starting processes"
      );
      assert.deepEqual(starting?.databaseConnections, [4, 3]);
      const signalled = performance.now();
      child.kill("SIGTERM");
      const draining = await waitUntil(
        async () => {
          const res = await get(port, "/readyz");
          return res.status === 503 && res;
        },
        "/readyz to say draining",
        2_000,
      );
      assert.deepEqual(JSON.parse(draining.body), { status: "draining" });
      const { code } = await child.status;
      const ms = performance.now() - signalled;
      assert.equal(code, 0, text.stderr);
      assert.ok(ms >= 1_000 && ms < 6_000, `stopped after ${Math.round(ms)} ms`);
      await pumped;
      for (const line of lines()) {
        assert.doesNotThrow(() => JSON.parse(line), `not a JSON line: ${line}`);
      }
      assert.equal(count("shutting down"), 2);
      assert.equal(count("stopped"), 2);
      assert.ok(count("request") >= 7, "request lines");
    } catch (err) {
      console.error(text.stdout, text.stderr);
      throw err;
    } finally {
      // After a failure: SIGTERM, which `deno task` passes on (a SIGKILL would orphan serve.ts).
      const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
      try {
        child.kill("SIGTERM");
      } catch { /* exited */ }
      await child.status;
      clearTimeout(timer);
    }
  },
);

/** The pids of `pid`'s children. */
async function childrenOf(pid: number): Promise<number[]> {
  const text = await Deno.readTextFile(`/proc/${pid}/task/${pid}/children`);
  return text.split(" ").filter(Boolean).map(Number);
}

/** True once `pid` is gone (or a zombie nobody reaped). */
async function gone(pid: number): Promise<boolean> {
  try {
    return /^State:\s+Z/m.test(await Deno.readTextFile(`/proc/${pid}/status`));
  } catch {
    return true;
  }
}

serveTest(
  "deno task serve: its processes stop by themselves when the supervisor is killed",
  async (db) => {
    const port = freePort();
    const supervisor = runServe(db.env, port, { LOG_LEVEL: "error" }, "quiet");
    let pids: number[] = [];
    try {
      await waitUntil(
        async () => {
          try {
            return (await get(port, "/readyz")).status === 200;
          } catch {
            return false;
          }
        },
        "the service to be ready",
        60_000,
      );
      pids = await childrenOf(supervisor.pid);
      assert.equal(pids.length, navigator.hardwareConcurrency);
      supervisor.kill("SIGKILL");
      await supervisor.status;
      for (const pid of pids) await waitUntil(() => gone(pid), `process ${pid} to stop`, 5_000);
      assert.ok(await refuses("127.0.0.1", port));
    } finally {
      for (const pid of pids) {
        try {
          Deno.kill(pid, "SIGKILL");
        } catch { /* gone */ }
      }
      await killed(supervisor);
    }
  },
);

serveTest(
  "deno task serve: a process that dies is replaced with its slot's share of the pool",
  async (db) => {
    const port = freePort();
    const metricsPort = freePort();
    const supervisor = runServe(
      db.env,
      port,
      { LOG_LEVEL: "info", DATABASE_POOL_SIZE: "7", METRICS_PORT: String(metricsPort) },
      "piped",
    );
    const started = performance.now();
    const { text, done: pumped } = collect(supervisor);
    // Info records go to stdout, errors (a process exited) to stderr.
    const records = () => [...jsonRecords(text.stdout), ...jsonRecords(text.stderr)];
    const named = (msg: string) => records().filter((r) => r.msg === msg);
    try {
      await waitUntil(() => named("listening").length === 2, "two processes listening", 60_000);
      const slotOne = named("serve: process started").find((r) => r.slot === 1);
      assert.equal(slotOne?.databaseConnections, 3);
      // The supervisor replaces a process that ran 10 s (server/ops/supervisor.ts STARTED_MS);
      // one that dies sooner failed to start, and stops them all.
      await new Promise((r) => setTimeout(r, Math.max(0, 10_500 - (performance.now() - started))));
      Deno.kill(slotOne.pid, "SIGKILL");
      await waitUntil(() => named("listening").length === 3, "the replacement listening", 30_000);
      const replacement = named("serve: process started").filter((r) => r.slot === 1)[1];
      assert.equal(replacement?.databaseConnections, 3);
      assert.notEqual(replacement.pid, slotOne.pid);
      assert.deepEqual(await poolSizes(metricsPort, 2), [3, 4]);
      assert.equal(named("serve: a process exited; starting another").length, 1);
      supervisor.kill("SIGTERM");
      assert.equal((await supervisor.status).code, 0, text.stderr);
    } catch (err) {
      console.error(text.stdout, text.stderr);
      throw err;
    } finally {
      await killed(supervisor);
      await pumped;
    }
  },
);

serveTest(
  "deno task serve: a pool smaller than the processes gives each one connection, and says so",
  async (db) => {
    const serve = runServe(
      db.env,
      freePort(),
      { LOG_LEVEL: "info", DATABASE_POOL_SIZE: "1" },
      "piped",
      ["--processes", "2"],
    );
    const { text, done } = collect(serve);
    const records = () => jsonRecords(text.stdout);
    try {
      const count = 2;
      await waitUntil(
        () => records().filter((r) => r.msg === "listening").length === count,
        "every process listening",
        60_000,
      );
      const warning = records().find((r) => r.level === "warn" && r.msg.startsWith("serve:"));
      assert.deepEqual(
        { ...warning, time: undefined },
        {
          time: undefined,
          level: "warn",
          msg: "serve: DATABASE_POOL_SIZE is less than the processes; each opens one connection",
          databasePoolSize: 1,
          processes: count,
        },
      );
      const shares = records().filter((r) => r.msg === "serve: process started");
      assert.deepEqual(shares.map((r) => r.databaseConnections), Array(count).fill(1));
      serve.kill("SIGTERM");
      assert.equal((await serve.status).code, 0, text.stderr);
    } finally {
      await killed(serve);
      await done;
    }
  },
);
