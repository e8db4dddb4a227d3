/**
 * The observability cases' service: the single process with OpenTelemetry on (OTEL_DENO=true,
 * traces and metrics exported over OTLP/HTTP to a local receiver, tools/bench/otlp_receiver.ts)
 * and /metrics served on METRICS_PORT, as docs/operations.md describes turning them on.
 */
import { freePort, spawn, stop, waitFor } from "./processes.ts";
import { startServer } from "./bench_service.ts";

/** A running service with observability on, its receiver and metrics endpoint. */
export interface ObservedService {
  server: Deno.ChildProcess;
  base: string;
  /** Exports the receiver got, and whether GET /metrics answered, once the cases ran. */
  check(): Promise<{ exports: number; metrics: boolean }>;
  stop(): Promise<void>;
}

/**
 * Starts the receiver, then the service of `env` with observability on, on a free port (with
 * `cpuProfDir`, V8 writes its CPU profile there when it stops; `v8Flags` replaces the start
 * task's V8 flags).
 */
export async function startObserved(
  root: string,
  env: Record<string, string>,
  cpuProfDir?: string,
  v8Flags?: string,
): Promise<ObservedService> {
  const receiverPort = freePort();
  const receiver = spawn(["run", "-A", "tools/bench/otlp_receiver.ts"], {
    PORT: String(receiverPort),
  }, root);
  const receiverUrl = `http://127.0.0.1:${receiverPort}`;
  let server: Deno.ChildProcess;
  const metricsPort = freePort();
  const port = freePort();
  try {
    await waitFor(`${receiverUrl}/stats`);
    server = await startServer(
      root,
      {
        ...env,
        OTEL_DENO: "true",
        OTEL_SERVICE_NAME: "portal-launcher-bench",
        OTEL_EXPORTER_OTLP_ENDPOINT: receiverUrl,
        // The default protocol (http/protobuf) and export intervals: as in production.
        METRICS_PORT: String(metricsPort),
      },
      port,
      cpuProfDir,
      v8Flags,
    );
  } catch (err) {
    await stop(receiver);
    throw err;
  }
  return {
    server,
    base: `http://127.0.0.1:${port}`,
    async check() {
      const res = await fetch(`http://127.0.0.1:${metricsPort}/metrics`);
      await res.body?.cancel();
      const { exports } = await (await fetch(`${receiverUrl}/stats`)).json();
      return { exports, metrics: res.ok };
    },
    async stop() {
      await stop(server);
      await stop(receiver);
    },
  };
}
