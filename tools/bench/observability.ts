/**
 * The observability cases (`observabilityCases`, alternated with the single process) and their
 * service: the single process with OpenTelemetry on (OTEL_DENO=true, traces and metrics exported
 * over OTLP/HTTP to a local receiver, tools/bench/otlp_receiver.ts) and /metrics served on
 * METRICS_PORT, as docs/operations.md describes turning them on.
 */
import { alternated } from "./alternate.ts";
import { wrk } from "./load.ts";
import { freePort, peakRss, spawn, stop, waitFor } from "./processes.ts";
import type { WrkResult } from "./wrk.ts";
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
  inspectPort?: number,
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
      inspectPort,
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

/** What the observability cases measured: launch and GET, off and on, memory and exports. */
export interface ObservabilityCases {
  off: WrkResult[];
  on: WrkResult[];
  /** Peak RSS of the observed service, MB. */
  rss: number;
  check: { exports: number; metrics: boolean };
}

/**
 * Starts the observed service beside the running single process `single` (idle meanwhile),
 * warms it up, and measures the launch and GET cases on both, alternated (off, on, off, on;
 * tools/bench/alternate.ts) in runs of `seconds`, each after `before()` (the vacuum every case
 * gets); each side's two runs are merged under the rows' names.
 */
export async function observabilityCases(o: {
  root: string;
  env: Record<string, string>;
  seconds: number;
  single: { base: string; pid: number };
  warmUp: (base: string, script: string) => Promise<unknown>;
  launch: { path: string; warm: string; off: string[]; on: string[] };
  get: { path: string; script: string };
  before: () => Promise<void>;
}): Promise<ObservabilityCases> {
  const observed = await startObserved(o.root, o.env);
  try {
    await o.warmUp(observed.base, o.launch.warm);
    // One side of a case: its k-th run (script `lua(k)`) after the vacuum every case gets.
    const side = (
      name: string,
      base: string,
      path: string,
      lua: (k: number) => string,
      pid: number,
    ) => ({
      name,
      run: async (k: number) => {
        await o.before();
        return await wrk(o.seconds, `${name} (${k + 1}/2)`, `${base}${path}`, 64, lua(k), pid);
      },
    });
    const cases: [string, string, (k: number) => string, (k: number) => string][] = [
      ["launch", o.launch.path, (k) => o.launch.off[k], (k) => o.launch.on[k]],
      ["GET /api/v1/sessions/:id", o.get.path, () => o.get.script, () => o.get.script],
    ];
    const off: WrkResult[] = [];
    const on: WrkResult[] = [];
    for (const [name, path, offLua, onLua] of cases) {
      const [a, b] = await alternated(
        2,
        side(
          `${name}, one process, paired with observability on`,
          o.single.base,
          path,
          offLua,
          o.single.pid,
        ),
        side(`${name}, observability on`, observed.base, path, onLua, observed.server.pid),
      );
      off.push(a);
      on.push(b);
    }
    return { off, on, rss: await peakRss(observed.server), check: await observed.check() };
  } finally {
    await observed.stop();
  }
}
