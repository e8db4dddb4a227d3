import assert from "node:assert/strict";
import {
  mainThreadCpuSeconds,
  parseChildCpuSeconds,
  parseCpuSeconds,
  parseMachineCpu,
  parsePeakRssMb,
  parsePgbench,
  parseRssPartsMb,
  processCpuSeconds,
  ratioText,
} from "../../../tools/bench/system.ts";

const PGBENCH = `pgbench (15.20 (Debian 15.20-0+deb12u1))
transaction type: <builtin: TPC-B (sort of)>
scaling factor: 10
query mode: prepared
number of clients: 64
number of threads: 2
duration: 10 s
number of transactions actually processed: 25000
latency average = 25.600 ms
initial connection time = 40.123 ms
tps = 2500.123456 (without initial connection time)
`;

Deno.test("parsePgbench reads tps and average latency", () => {
  assert.deepEqual(parsePgbench(PGBENCH, "pgbench TPC-B", 64), {
    name: "pgbench TPC-B",
    clients: 64,
    tps: 2500.123456,
    latencyAvgMs: 25.6,
  });
  assert.throws(() => parsePgbench("connection refused", "x", 1), /cannot parse pgbench/);
});

Deno.test("parseRssPartsMb reads RssFile and RssAnon in MB", () => {
  const status = "VmHWM:\t  153600 kB\nRssAnon:\t   81920 kB\nRssFile:\t   54272 kB\n" +
    "RssShmem:\t       0 kB\n";
  assert.deepEqual(parseRssPartsMb(status), { file: 53, anon: 80 });
  assert.throws(() => parseRssPartsMb("VmHWM:\t 1 kB\n"), /RssFile/);
});

Deno.test("parsePeakRssMb reads VmHWM in MB", () => {
  assert.equal(parsePeakRssMb("Name:\tdeno\nVmHWM:\t  153600 kB\nVmRSS:\t 100 kB\n"), 150);
  assert.throws(() => parsePeakRssMb("Name:\tdeno\n"), /VmHWM/);
});

Deno.test("ratioText shows the ratio and whether it meets the target", () => {
  assert.equal(ratioText(900, 1000, "TPC-B"), "0.90 × TPC-B");
  assert.equal(ratioText(900, 1000, "TPC-B", 0.8), "0.90 × TPC-B ✔ (target ≥ 0.8)");
  assert.equal(ratioText(300, 1000, "hello", 0.4), "0.30 × hello ✘ (target ≥ 0.4)");
});

Deno.test("parseCpuSeconds adds utime and stime, even with spaces in the name", () => {
  const stat = "1234 (deno serve x) S 1 1234 1234 0 -1 4194560 100 0 0 0 250 50 20 0 20 0 5 0";
  assert.equal(parseCpuSeconds(stat), 3);
  assert.equal(parseCpuSeconds(stat, 1000), 0.3);
  assert.equal(parseChildCpuSeconds(stat), 0.2, "cutime 20 + cstime 0");
});

Deno.test("parseMachineCpu counts all but idle and iowait as busy", () => {
  const stat = "cpu  100 5 50 800 40 3 2 0 7 0\ncpu0 50 2 25 400 20 1 1 0 0 0\nintr 1\n";
  // busy = user + nice + system + irq + softirq + steal; guest (7) is already in user.
  assert.deepEqual(parseMachineCpu(stat), { busy: 160, total: 1000 });
  assert.throws(() => parseMachineCpu("intr 1\n"), /no cpu line/);
});

Deno.test("mainThreadCpuSeconds counts a process's main thread, within its total", async () => {
  // A `deno run` process keeps its JavaScript on its main thread (a test's runs elsewhere): it
  // works there until the process has used 0.5 s more CPU (CPU, not wall time: the machine may
  // be busy with other tests), says so, and waits for its stdin to close.
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "eval",
      "import process from 'node:process';" +
      "const start = process.cpuUsage(); let x = 0;" +
      "while (process.cpuUsage(start).user < 500_000) for (let i = 0; i < 1e5; i++) x += Math.sqrt(i);" +
      "console.log('worked', x > 0); for await (const _ of Deno.stdin.readable);",
    ],
    stdin: "piped",
    stdout: "piped",
  }).spawn();
  try {
    const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
    assert.match((await reader.read()).value ?? "", /worked true/);
    const thread = await mainThreadCpuSeconds(child.pid);
    const total = await processCpuSeconds(child.pid);
    // Ticks are 10 ms, and the process's helper threads share the 0.5 s it used.
    assert.ok(thread >= 0.3, `main thread ${thread} s`);
    assert.ok(thread <= total, `main thread ${thread} s over the process's ${total} s`);
    reader.releaseLock();
  } finally {
    await child.stdin.close();
    await child.stdout.cancel().catch(() => {});
    await child.status;
  }
});
