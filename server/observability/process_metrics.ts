/**
 * The process's own health, read when /metrics is scraped or OTLP exports: CPU seconds, resident
 * memory and start time under the names every Prometheus client library gives them
 * (`process_cpu_seconds_total`, …), so stock dashboards and alerts work unchanged; the V8 heap
 * against its limit (the service starts with `--max-old-space-size`: a heap at its limit ends the
 * process); and how late the event loop runs a timer, sampled twice a second by the serving
 * process (`watchEventLoop`, started by server/main.ts). Nothing here runs per request.
 *
 * File descriptors (`process_open_fds`) are left out: they are read from /proc/self, which Deno
 * opens only to a process run with --allow-all, and the service runs with less.
 */
import process from "node:process";
import { getHeapSpaceStatistics, getHeapStatistics } from "node:v8";
import { VERSION } from "../config.ts";
import { NO_LABELS as none, type Registry, type Sample } from "./metrics.ts";

function one(value: number): Promise<Sample<never>[]> {
  return Promise.resolve([{ labels: none, value }]);
}

/** CPU seconds this process has used, by mode (OpenTelemetry's `cpu.mode`). */
export function cpuTimes(): { user: number; system: number } {
  const { user, system } = process.cpuUsage();
  return { user: user / 1e6, system: system / 1e6 };
}

/** CPU seconds this process has used, user and system together. */
export function cpuSeconds(): number {
  const { user, system } = cpuTimes();
  return user + system;
}

/** How often the serving process samples the event loop's delay. */
export const LOOP_SAMPLE_MS = 500;

/** Bounds of the event loop delay histogram, seconds: a healthy loop stays in the first. */
const LOOP_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/**
 * Arms a timer every `intervalMs` and records how late it ran, in seconds: the time the loop was
 * held by other work (synchronous code, a long GC) when the timer fell due. The timer never keeps
 * the process alive; the answer stops it.
 */
export function watchEventLoop(
  record: (seconds: number) => void,
  intervalMs = LOOP_SAMPLE_MS,
): () => void {
  let timer = 0;
  let stopped = false;
  const arm = () => {
    const due = performance.now() + intervalMs;
    // A number in Deno's globals; node:process's types above say Node's Timeout object.
    timer = Number(setTimeout(() => {
      try {
        record(Math.max(0, performance.now() - due) / 1e3);
      } finally {
        if (!stopped) arm();
      }
    }, intervalMs));
    Deno.unrefTimer(timer);
  };
  arm();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}

/** What the serving process starts once it runs. */
export interface ProcessMetrics {
  /** Samples the event loop's delay into `portal.event_loop.delay`; answers the stop. */
  watchEventLoop(intervalMs?: number): () => void;
}

/** Adds the process instruments to `registry`. */
export function registerProcessMetrics(registry: Registry): ProcessMetrics {
  // Prometheus's `*_build_info` convention: 1, labelled with what runs (rollouts show both).
  registry.gauge({
    name: "portal.build.info",
    prometheus: "portal_build_info",
    unit: "1",
    help: "Always 1, labelled with this process's release version and Deno version.",
    labels: ["version", "deno"],
  }, () => Promise.resolve([{ labels: { version: VERSION, deno: Deno.version.deno }, value: 1 }]));

  // OTLP: by `cpu.mode` (OpenTelemetry's convention); /metrics: their sum, unlabelled.
  registry.observedCounter({
    name: "process.cpu.time",
    prometheus: "process_cpu_seconds_total",
    prometheusTotal: true,
    unit: "s",
    help: "CPU time this process used, user and system, in seconds.",
    labels: ["cpu.mode"],
  }, () => {
    const { user, system } = cpuTimes();
    return Promise.resolve([
      { labels: { "cpu.mode": "user" }, value: user },
      { labels: { "cpu.mode": "system" }, value: system },
    ]);
  });

  registry.gauge({
    name: "process.memory.usage",
    prometheus: "process_resident_memory_bytes",
    unit: "By",
    help: "Resident memory of this process, in bytes.",
    labels: [],
  }, () => one(Deno.memoryUsage().rss));

  registry.gauge({
    name: "process.start_time",
    unit: "s",
    help: "When this process started, in seconds since the Unix epoch.",
    labels: [],
  }, () => one(performance.timeOrigin / 1e3));

  // OTLP: by heap space (OpenTelemetry's convention, as Deno's own v8js.* metrics); /metrics: the
  // whole heap, which `portal_heap_limit_bytes` bounds.
  registry.gauge({
    name: "v8js.memory.heap.used",
    prometheusTotal: true,
    unit: "By",
    help: "V8 heap in use, in bytes.",
    labels: ["v8js.heap.space.name"],
  }, () =>
    Promise.resolve(
      getHeapSpaceStatistics().filter((space) => space.space_size > 0).map((space) => ({
        labels: { "v8js.heap.space.name": space.space_name },
        value: space.space_used_size,
      })),
    ));

  // Not v8js.memory.heap.limit: that name is a heap space's reserved size (Deno sends it per space).
  registry.gauge({
    name: "portal.heap.limit",
    unit: "By",
    help: "The most the V8 heap may grow to, in bytes: a heap that reaches it ends the process.",
    labels: [],
  }, () => one(getHeapStatistics().heap_size_limit));

  const loopDelay = registry.histogram({
    name: "portal.event_loop.delay",
    unit: "s",
    help: "How late the event loop ran a timer, sampled every 0.5 s: time it was held by other " +
      "work (synchronous code, a long garbage collection).",
    labels: [],
    buckets: LOOP_BUCKETS,
  });
  return {
    watchEventLoop: (intervalMs) =>
      watchEventLoop((seconds) => loopDelay.record(none, seconds), intervalMs),
  };
}
