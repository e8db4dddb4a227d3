/**
 * Entry of `deno task serve [--host ADDRESS] [--port PORT] [--processes N]`: the service on every
 * core, PostgreSQL only (the embedded database serves one process). It runs N copies of
 * server/main.ts (default: one per core) that listen on the same address with SO_REUSEPORT, so the
 * kernel spreads connections among them; each drains and stops on its own as `deno task start`
 * does (server/ops/shutdown.ts). This process forwards SIGTERM and SIGINT to them and exits when
 * they have all stopped: 0 when every one exited 0.
 *
 * Not `deno serve --parallel`: on SIGTERM it closes its listener at once, before a load balancer
 * can notice a draining /readyz, and it prefixes its workers' console lines, which breaks JSON
 * lines (docs/operations.md#all-cores).
 */
import { type Config, ConfigError, loadConfig } from "./config.ts";
import { type Flags, parseFlags, UsageError } from "./ops/cli.ts";
import { log, setLogLevel } from "./log.ts";

const MAIN = new URL("./main.ts", import.meta.url).pathname;

/** What each process runs with: `deno task start`'s permissions and heap caps, SO_REUSEPORT. */
export const PROCESS_ARGS = [
  "run",
  "--allow-net",
  "--allow-env",
  "--allow-read",
  "--allow-write",
  "--allow-sys",
  "--unstable-net",
  "--v8-flags=--max-semi-space-size=4,--max-old-space-size=128",
  MAIN,
  "--reuse-port",
  "--supervised",
];

/** A process that dies after running this long is restarted; sooner, it failed to start. */
const STARTED_MS = 10_000;

function fail(message: string): never {
  console.error(message);
  Deno.exit(1);
}

let flags: Flags, config: Config;
try {
  flags = parseFlags(Deno.args);
  config = loadConfig({ ...Deno.env.toObject(), ...flags.env });
} catch (err) {
  if (!(err instanceof ConfigError || err instanceof UsageError)) throw err;
  fail(err.message);
}
if (!config.databaseUrl) {
  fail("deno task serve needs DATABASE_URL (the embedded database serves a single process)");
}
if (config.port === 0) fail("deno task serve needs a port other than 0 (its processes share it)");
setLogLevel(config.logLevel);

const count = flags.processes ?? navigator.hardwareConcurrency;
const env = { ...Deno.env.toObject(), HOST: config.host, PORT: String(config.port) };
const running = new Set<Deno.ChildProcess>();
let stopping = false;
let failed = false;

function spawn(): void {
  if (stopping) return;
  const started = performance.now();
  // stdin stays open and unused: a process whose stdin ends knows this supervisor is gone.
  const child = new Deno.Command(Deno.execPath(), { args: PROCESS_ARGS, env, stdin: "piped" })
    .spawn();
  running.add(child);
  child.status.then(({ code, signal }) => {
    running.delete(child);
    if (stopping) {
      if (code !== 0) failed = true;
      if (!running.size) Deno.exit(failed ? 1 : 0);
      return;
    }
    const ranMs = Math.round(performance.now() - started);
    if (ranMs >= STARTED_MS) {
      log.error("serve: a process exited; starting another", { pid: child.pid, code, signal });
      setTimeout(spawn, 1_000);
    } else {
      log.error("serve: a process failed to start; stopping", { pid: child.pid, code, ranMs });
      failed = true;
      stop("SIGTERM");
    }
  });
}

function stop(signal: "SIGTERM" | "SIGINT"): void {
  if (!stopping) {
    stopping = true;
    // The processes exit within SHUTDOWN_TIMEOUT_MS; this is the backstop if one does not.
    setTimeout(() => {
      log.error("serve: processes still running after SHUTDOWN_TIMEOUT_MS; killing them");
      for (const child of running) child.kill("SIGKILL");
      Deno.exit(1);
    }, config.shutdownTimeoutMs + 2_000);
  }
  for (const child of running) {
    try {
      child.kill(signal);
    } catch { /* it has just exited */ }
  }
  if (!running.size) Deno.exit(failed ? 1 : 0);
}

Deno.addSignalListener("SIGINT", () => stop("SIGINT"));
Deno.addSignalListener("SIGTERM", () => stop("SIGTERM"));
log.info("serve: starting processes", {
  processes: count,
  url: `http://${config.host}:${config.port}`,
});
for (let i = 0; i < count; i++) spawn();
