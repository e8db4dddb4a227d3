/**
 * The process's own health, read when /metrics is scraped or OTLP exports: CPU seconds, resident
 * memory and start time under the names every Prometheus client library gives them
 * (`process_cpu_seconds_total`, …), so stock dashboards and alerts work unchanged; the V8 heap
 * against its limit (the service starts with `--max-old-space-size`: a heap at its limit ends the
 * process); and how long a timer waits for the event loop. Nothing here runs per request.
 *
 * File descriptors (`process_open_fds`) are left out: they are read from /proc/self, which Deno
 * opens only to a process run with --allow-all, and the service runs with less.
 */
import process from "node:process";
import { getHeapStatistics } from "node:v8";
import type { Registry, Sample } from "./metrics.ts";

const none: Record<never, string> = {};

function one(value: number): Promise<Sample<never>[]> {
  return Promise.resolve([{ labels: none, value }]);
}

/** CPU seconds this process has used, user and system together. */
export function cpuSeconds(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1e6;
}

/** Seconds from asking for a timer of 0 ms to its callback: the event loop's backlog now. */
export function eventLoopLag(): Promise<number> {
  const asked = performance.now();
  return new Promise((resolve) => setTimeout(() => resolve((performance.now() - asked) / 1e3), 0));
}

/** Adds the process instruments to `registry`. */
export function registerProcessMetrics(registry: Registry): void {
  registry.observedCounter({
    name: "process.cpu.time",
    prometheus: "process_cpu_seconds_total",
    unit: "s",
    help: "CPU time this process used, user and system, in seconds.",
    labels: [],
  }, () => one(cpuSeconds()));

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

  registry.gauge({
    name: "v8js.memory.heap.used",
    unit: "By",
    help: "V8 heap in use, in bytes.",
    labels: [],
  }, () => one(getHeapStatistics().used_heap_size));

  // Deno exports this one over OTLP itself (with v8js.memory.heap.size and the spaces' sizes).
  registry.gauge({
    name: "v8js.memory.heap.limit",
    unit: "By",
    help: "The V8 heap's limit, in bytes: a heap that reaches it ends the process.",
    labels: [],
    otlp: false,
  }, () => one(getHeapStatistics().heap_size_limit));

  registry.gauge({
    name: "portal.event_loop.lag",
    unit: "s",
    help: "Seconds a timer of 0 ms waited for the event loop when this was read.",
    labels: [],
  }, async () => [{ labels: none, value: await eventLoopLag() }]);
}
