/**
 * The process instruments (server/observability/process_metrics.ts), each reading checked against
 * a source of its own: /proc/self/stat for CPU, /proc/self/status for resident memory, and a loop
 * held on purpose. This test runs with --allow-all, so it reads /proc/self; the service
 * does not need to.
 */
import assert from "node:assert/strict";
import parsePrometheusTextFormat from "parse-prometheus-text-format";
import { getHeapStatistics } from "node:v8";
import { Registry } from "../../../server/observability/metrics.ts";
import { waitUntil } from "../../helpers/crm_server.ts";
import { assertNearVmRss, PROCESS_FAMILIES } from "../../helpers/process_metrics.ts";
import {
  cpuSeconds,
  registerProcessMetrics,
  watchEventLoop,
} from "../../../server/observability/process_metrics.ts";

const linux = Deno.build.os === "linux";

function busy(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) { /* keep the loop and one core busy */ }
}

/** utime + stime of /proc/self/stat, in seconds (clock ticks of `getconf CLK_TCK`). */
function procCpuSeconds(ticksPerSecond: number): number {
  const stat = Deno.readTextFileSync("/proc/self/stat");
  // Fields after the command name's closing parenthesis: state is field 3, utime 14, stime 15.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) / ticksPerSecond;
}

async function shell(command: string): Promise<string> {
  const out = await new Deno.Command("sh", { args: ["-c", command], stdout: "piped" }).output();
  return new TextDecoder().decode(out.stdout).trim();
}

Deno.test({
  name: "process metrics: CPU seconds agree with /proc/self/stat and grow with work",
  ignore: !linux,
  async fn() {
    const ticks = Number(await shell("getconf CLK_TCK"));
    // Work until 0.3 s more CPU is counted (on a loaded machine that takes longer than 0.3 s).
    const before = cpuSeconds();
    const deadline = performance.now() + 10_000;
    while (cpuSeconds() - before < 0.3 && performance.now() < deadline) busy(10);
    assert.ok(cpuSeconds() - before >= 0.3, "10 s of work never counted 0.3 s of CPU");
    // The kernel's count, read between two of ours (the whole process: every thread, as
    // `deno test --parallel` runs other files in this one). It counts whole clock ticks.
    const low = cpuSeconds();
    const kernel = procCpuSeconds(ticks);
    const high = cpuSeconds();
    const tick = 1 / ticks;
    assert.ok(
      low - 2 * tick <= kernel && kernel <= high + 2 * tick,
      `kernel ${kernel} s, ours ${low} to ${high} s`,
    );
  },
});

Deno.test("process metrics: the event loop's delay shows a loop held on purpose", async () => {
  const delays: number[] = [];
  const stop = watchEventLoop((seconds) => delays.push(seconds), 50);
  try {
    // A few samples of an idle loop, then one held by 300 ms of synchronous work.
    await waitUntil(() => delays.length >= 3, "three samples", 5_000);
    assert.ok(delays.every((d) => d < 0.2), `idle: ${delays}`);
    const idle = delays.length;
    busy(300);
    await waitUntil(() => delays.length > idle, "the held sample", 5_000);
    assert.ok(delays[idle] >= 0.24, `held 300 ms past a 50 ms timer: ${delays[idle]} s late`);
  } finally {
    stop();
  }
  const stopped = delays.length;
  await new Promise((resolve) => setTimeout(resolve, 150));
  assert.equal(delays.length, stopped, "no sample after the stop");
});

Deno.test({
  name: "process metrics: /metrics names them as Prometheus client libraries do",
  ignore: !linux,
  async fn() {
    const registry = new Registry();
    registerProcessMetrics(registry);
    const text = await registry.render();
    const families: { name: string; type: string; metrics: { value: string }[] }[] =
      parsePrometheusTextFormat(text);
    const read = Object.fromEntries(families.map((f) => [f.name, Number(f.metrics[0]?.value)]));
    assert.deepEqual(Object.fromEntries(families.map((f) => [f.name, f.type])), PROCESS_FAMILIES);
    await assertNearVmRss(read.process_resident_memory_bytes, "self");
    // This test process started less than its own run time ago, and not in the future.
    const startedAgo = Date.now() / 1e3 - read.process_start_time_seconds;
    assert.ok(startedAgo >= 0 && startedAgo < 600, `started ${startedAgo} s ago`);
    assert.ok(read.v8js_memory_heap_used_bytes > 1e6);
    // The heap spaces' sum on /metrics is V8's whole-heap figure (a scavenge may fall between).
    const whole = getHeapStatistics().used_heap_size;
    assert.ok(
      Math.abs(read.v8js_memory_heap_used_bytes - whole) < 0.2 * whole,
      `spaces ${read.v8js_memory_heap_used_bytes} B, heap ${whole} B`,
    );
    assert.ok(read.portal_heap_limit_bytes > read.v8js_memory_heap_used_bytes);
  },
});
