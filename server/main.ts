/**
 * Entry point: `deno task start [--host ADDRESS] [--port PORT]`. Serves the app on HOST:PORT until
 * SIGINT or SIGTERM, then drains and stops (server/ops/shutdown.ts). `deno task serve` runs one of
 * these per core (server/serve.ts).
 */
import { SchemaNotCurrent, type Service, startService } from "./service.ts";
import { type Config, ConfigError, loadConfig } from "./config.ts";
import { log, startFailure } from "./log.ts";
import { DataDirLocked } from "../db/data_dir_lock.ts";
import { type Flags, parseFlags, UsageError } from "./ops/cli.ts";
import { shutDown } from "./ops/shutdown.ts";
import { type MetricsListener, serveMetrics } from "./observability/metrics_server.ts";
import { processMetrics } from "./observability/instruments.ts";
import { startBanner, startRecord } from "./observability/start_record.ts";

let config: Config, flags: Flags;
try {
  flags = parseFlags(Deno.args);
  config = loadConfig({ ...Deno.env.toObject(), ...flags.env });
} catch (err) {
  if (!(err instanceof ConfigError || err instanceof UsageError)) throw err;
  startFailure(err.message);
  Deno.exit(1);
}

let service: Service;
try {
  // The processes of `deno task serve` overlap each other's callback batches: no extra lane each
  // (server/callbacks/worker.ts EXTRA_BATCHES).
  service = await startService(config, { extraDeliveryBatches: flags.supervised ? 0 : undefined });
} catch (err) {
  if (!(err instanceof DataDirLocked || err instanceof SchemaNotCurrent)) throw err;
  startFailure(err.message);
  Deno.exit(1);
}

// GET /metrics on METRICS_PORT (loopback by default). The processes of `deno task serve` share
// one environment: each takes the first free port from METRICS_PORT up.
let metrics: MetricsListener | null = null;
if (config.metricsPort !== null) {
  try {
    metrics = serveMetrics(config.metricsHost, config.metricsPort, flags.supervised ? 64 : 1);
  } catch (err) {
    startFailure(
      `METRICS_PORT: cannot listen on ${config.metricsHost}:${config.metricsPort}: ${
        (err as Error).message
      }`,
    );
    await service.close();
    Deno.exit(1);
  }
}

// How late the event loop runs, twice a second, into portal_event_loop_delay_seconds.
processMetrics.watchEventLoop();

let server: Deno.HttpServer;
let stopping = false;
function stop(signal: string): void {
  if (stopping) return;
  stopping = true;
  // Whatever hangs, the process is gone within SHUTDOWN_TIMEOUT_MS (exit 1 says it overran).
  setTimeout(() => {
    log.error("shutdown overran SHUTDOWN_TIMEOUT_MS; exiting", { ms: config.shutdownTimeoutMs });
    Deno.exit(1);
  }, config.shutdownTimeoutMs);
  shutDown(server, service, config, signal).then(() => Deno.exit(0), (err) => {
    log.error("shutdown failed", { error: String(err) });
    Deno.exit(1);
  });
}
// Listening before the start record is printed: whoever starts the process may stop it as soon as
// it reads that record. A listener runs on a later turn of the event loop, by which time
// Deno.serve (synchronous) has set `server`.
Deno.addSignalListener("SIGINT", () => stop("SIGINT"));
Deno.addSignalListener("SIGTERM", () => stop("SIGTERM"));
try {
  server = Deno.serve({
    hostname: config.host,
    port: config.port,
    // serve.ts's processes share the port; the kernel spreads connections among them.
    reusePort: flags.reusePort,
    onListen: ({ hostname, port }) => {
      service.dataDirLock?.setPort(port).catch(() => {});
      const facts = {
        version: config.version,
        url: `http://${hostname}:${port}`,
        publicUrl: config.publicUrl,
        portalPrefix: config.portalPrefix,
        database: service.db.mode === "embedded"
          ? `embedded PGlite in ${config.dataDir}/pglite`
          : "PostgreSQL (DATABASE_URL)",
        metricsUrl: metrics?.url ?? null,
        migrated: service.migrated,
        demo: service.demo,
      };
      // The log is JSON lines from the first to the last; people at a terminal get a banner.
      if (Deno.stdout.isTerminal()) console.log(startBanner(facts));
      else log.always("listening", startRecord(facts));
    },
  }, service.app.fetch);
} catch (err) {
  // The port is taken, say: a start failure like the others (a JSON record unless a terminal).
  startFailure(`cannot listen on ${config.host}:${config.port}: ${(err as Error).message}`);
  await metrics?.close();
  await service.close();
  Deno.exit(1);
}

if (flags.supervised) {
  // serve.ts holds our standard input open: when it ends, the supervisor is gone (even killed).
  (async () => {
    for await (const _ of Deno.stdin.readable) { /* nothing is sent; wait for the end */ }
    stop("supervisor gone");
  })();
}
