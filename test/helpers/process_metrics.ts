/**
 * What the tests of the process instruments (server/observability/process_metrics.ts) check in
 * more than one place: their Prometheus families, and a resident-memory reading against the
 * kernel's.
 */
import assert from "node:assert/strict";

/** The process instruments on /metrics, by name, with their Prometheus types. */
export const PROCESS_FAMILIES = {
  portal_build_info: "GAUGE",
  process_cpu_seconds_total: "COUNTER",
  process_resident_memory_bytes: "GAUGE",
  process_start_time_seconds: "GAUGE",
  v8js_memory_heap_used_bytes: "GAUGE",
  portal_heap_limit_bytes: "GAUGE",
  portal_event_loop_delay_seconds: "HISTOGRAM",
} as const;

/** Asserts that `rss` (bytes) is within 20 % of the kernel's VmRSS of `pid` ("self": this one). */
export async function assertNearVmRss(rss: number, pid: number | "self"): Promise<void> {
  const status = await Deno.readTextFile(`/proc/${pid}/status`);
  const vmRss = Number(/^VmRSS:\s+(\d+) kB/m.exec(status)![1]) * 1024;
  assert.ok(Math.abs(rss - vmRss) / vmRss < 0.2, `RSS ${rss} against VmRSS ${vmRss}`);
}
