/**
 * The supervisor of `deno task serve` (server/serve.ts): N copies of server/main.ts that listen
 * on one address with SO_REUSEPORT (the kernel spreads connections among them). It forwards
 * SIGTERM and SIGINT to them, each drains and stops on its own (server/ops/shutdown.ts), and it
 * exits when they have all stopped: 0 when every one exited 0. A process that dies after running
 * 10 s is replaced; one that dies sooner failed to start, and then all stop (exit 1). The
 * processes share DATABASE_POOL_SIZE (poolShares): the service opens as many connections to
 * PostgreSQL on all cores as in one process, where more connections doing launches at once cost
 * PostgreSQL more CPU per launch (docs/operations.md#all-cores).
 */
import type { Config } from "../config.ts";
import { log } from "../log.ts";

const MAIN = new URL("../main.ts", import.meta.url).pathname;

/** What each process runs with: `deno task start`'s permissions and heap caps, SO_REUSEPORT. */
export const PROCESS_ARGS = [
  "run",
  "--allow-net",
  "--allow-env",
  "--allow-read",
  "--allow-write",
  "--allow-sys",
  // Deno.serve's reusePort is an unstable option (Deno 2.9).
  "--unstable-net",
  "--v8-flags=--max-semi-space-size=8,--max-old-space-size=128",
  MAIN,
  "--reuse-port",
  "--supervised",
];

/** A process that dies after running this long is replaced; sooner, it failed to start. */
const STARTED_MS = 10_000;

/**
 * Each process's share of `total` connections, as even as can be (10 on 3 processes: 4, 3, 3),
 * never fewer than one: with fewer connections than processes, each opens one.
 */
export function poolShares(total: number, count: number): number[] {
  const each = Math.floor(total / count);
  return Array.from({ length: count }, (_, i) => Math.max(1, each + (i < total % count ? 1 : 0)));
}

/** Runs `count` processes of the service on `config`'s address until SIGTERM or SIGINT. */
export function supervise(config: Config, count: number): void {
  const env = { ...Deno.env.toObject(), HOST: config.host, PORT: String(config.port) };
  const running = new Set<Deno.ChildProcess>();
  let stopping = false;
  let failed = false;
  const shares = poolShares(config.databasePoolSize, count);

  /** Starts process `slot` (0 to count - 1), with that slot's share of the pool. */
  function spawn(slot: number): void {
    if (stopping) return;
    const started = performance.now();
    // stdin stays open and unused: a process whose stdin ends knows its supervisor is gone.
    const child = new Deno.Command(Deno.execPath(), {
      args: PROCESS_ARGS,
      env: { ...env, DATABASE_POOL_SIZE: String(shares[slot]) },
      stdin: "piped",
    }).spawn();
    log.info("serve: process started", {
      pid: child.pid,
      slot,
      databaseConnections: shares[slot],
    });
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
        setTimeout(() => spawn(slot), 1_000);
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
    databaseConnections: shares,
  });
  if (config.databasePoolSize < count) {
    log.warn("serve: DATABASE_POOL_SIZE is less than the processes; each opens one connection", {
      databasePoolSize: config.databasePoolSize,
      processes: count,
    });
  }
  for (let slot = 0; slot < count; slot++) spawn(slot);
}
