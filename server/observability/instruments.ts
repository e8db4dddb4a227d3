/**
 * The product's instruments (docs/operations.md#metrics-and-tracing says what each means and
 * which alerts to set): one registry per process, served at /metrics and exported over OTLP.
 * Counters and histograms are recorded where things happen; the gauges are read when exported,
 * from the service that `observeService` registered (its database, pool and drain state) and,
 * for the process instruments (`process_metrics.ts`), from the runtime.
 */
import type { Sql } from "../../db/mod.ts";
import { poolUse } from "../../db/instrument.ts";
import { outboxStats } from "../../db/queries/callback_events.ts";
import { NO_LABELS as none, Registry, type Sample } from "./metrics.ts";
import { registerProcessMetrics } from "./process_metrics.ts";

/** Every instrument of this process. */
export const registry = new Registry();

const SECONDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/** HTTP requests answered, by method, route (the route's pattern) and status code. */
export const httpRequests = registry.counter({
  name: "portal.http.requests",
  unit: "{request}",
  help: "HTTP requests answered, by method, route pattern and status code.",
  labels: ["method", "route", "status"],
});

/** How long requests took, by method and route. */
export const httpDuration = registry.histogram({
  name: "portal.http.request.duration",
  unit: "s",
  help: "Time to answer an HTTP request, by method and route pattern.",
  labels: ["method", "route"],
  buckets: SECONDS,
});

/** Launches (POST of the launch route) by app and outcome. */
export const launches = registry.counter({
  name: "portal.launches",
  unit: "{launch}",
  help: "Launches by app and outcome: ok, reentered (a replay that went back to its session), " +
    "or the refusal's code; app is empty when no app of that name was found.",
  labels: ["app", "outcome"],
  unbounded: ["app"],
});

/** How long launches took, by result. */
export const launchDuration = registry.histogram({
  name: "portal.launch.duration",
  unit: "s",
  help: "Time to answer a launch, by result: ok, refused (4xx) or error (5xx).",
  labels: ["result"],
  buckets: SECONDS,
});

/** Token requests by result. */
export const tokens = registry.counter({
  name: "portal.oauth.tokens",
  unit: "{request}",
  help: "OAuth token requests by result: issued, or the OAuth error code.",
  labels: ["result"],
});

/** Failed password sign-ins by role and reason. */
export const signInFailures = registry.counter({
  name: "portal.sign_in.failures",
  unit: "{attempt}",
  help: "Failed password sign-ins by role (agent, admin) and reason: refused (wrong e-mail " +
    "or password), limited (too many attempts), rejected_form (cross-site or expired form).",
  labels: ["role", "reason"],
});

/** Callback delivery attempts by app and result. */
export const deliveries = registry.counter({
  name: "portal.callback.deliveries",
  unit: "{attempt}",
  help: "Callback delivery attempts by app and result: delivered, retry (failed, will be " +
    "retried), failed (given up) or released (interrupted by a shutdown).",
  labels: ["app", "result"],
  unbounded: ["app"],
});

/** How long delivery attempts took, by result. */
export const deliveryDuration = registry.histogram({
  name: "portal.callback.delivery.duration",
  unit: "s",
  help: "Time of one callback delivery attempt, by result.",
  labels: ["result"],
  buckets: SECONDS,
});

/** What the gauges read: a service's database handle, pool size, launch gate and drain state. */
export interface GaugeSource {
  sql: Sql;
  poolSize: number;
  launchGate: { load: { active: number; waiting: number } };
  draining: () => boolean;
}

let source: GaugeSource | null = null;

/**
 * Makes the gauges read `service` (the latest registered wins: one service per process in
 * production); returns the function that forgets it.
 */
export function observeService(service: GaugeSource): () => void {
  source = service;
  return () => {
    if (source === service) source = null;
  };
}

type Outbox = Awaited<ReturnType<typeof outboxStats>>;
let outboxReading: Promise<Outbox | null> | null = null;

/**
 * The outbox's state (null: the database did not answer). Gauges read together (one /metrics
 * answer) share one query: a reading is reused while it is in flight, never after.
 */
function outbox(): Promise<Outbox | null> {
  if (!source) return Promise.resolve(null);
  outboxReading ??= outboxStats(source.sql).catch(() => null).finally(() => {
    outboxReading = null;
  });
  return outboxReading;
}

registry.gauge({
  name: "portal.callback.outbox.pending",
  unit: "{event}",
  help: "Callback events not yet delivered or given up (pending or being delivered).",
  labels: [],
}, async () => {
  const o = await outbox();
  return o ? [{ labels: none, value: o.pending }] : [];
});

registry.gauge({
  name: "portal.callback.outbox.oldest_age",
  unit: "s",
  help: "Age of the oldest callback event not yet delivered or given up (0 when none).",
  labels: [],
}, async () => {
  const o = await outbox();
  return o ? [{ labels: none, value: o.oldestAgeSeconds }] : [];
});

function pool(read: (use: { inUse: number; waiting: number }, size: number) => number) {
  return (): Promise<Sample<never>[]> => {
    const use = source ? poolUse(source.sql) : null;
    return Promise.resolve(use ? [{ labels: none, value: read(use, source!.poolSize) }] : []);
  };
}

registry.gauge({
  name: "portal.db.pool.in_use",
  unit: "{connection}",
  help: "Database connections running a query or holding a transaction.",
  labels: [],
}, pool((use) => use.inUse));

registry.gauge({
  name: "portal.db.pool.waiting",
  unit: "{query}",
  help: "Queries and transactions waiting for a database connection.",
  labels: [],
}, pool((use) => use.waiting));

registry.gauge({
  name: "portal.db.pool.size",
  unit: "{connection}",
  help: "Database connections the pool may open (DATABASE_POOL_SIZE; 1 embedded).",
  labels: [],
}, pool((_, size) => size));

function gate(read: (load: { active: number; waiting: number }) => number) {
  return (): Promise<Sample<never>[]> =>
    Promise.resolve(source ? [{ labels: none, value: read(source.launchGate.load) }] : []);
}

registry.gauge({
  name: "portal.launch.gate.active",
  unit: "{launch}",
  help: "Launches this process is working on (at most three per pool connection).",
  labels: [],
}, gate((load) => load.active));

registry.gauge({
  name: "portal.launch.gate.waiting",
  unit: "{launch}",
  help: "Launches waiting to start: more came than the launch gate holds.",
  labels: [],
}, gate((load) => load.waiting));

registry.gauge({
  name: "portal.ready",
  unit: "1",
  help: "1 when the service is ready (not draining, its database answered), else 0.",
  labels: [],
}, async () => {
  if (!source) return [];
  const draining = source.draining();
  return [{ labels: none, value: !draining && await outbox() !== null ? 1 : 0 }];
});

/** The process's own health (CPU, memory, V8 heap, event loop), listed after the above. */
export const processMetrics = registerProcessMetrics(registry);
