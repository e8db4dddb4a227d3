/** Parses what pgbench and /proc print, for the benchmark table. */

/** A pgbench run: transactions per second and average latency. */
export interface PgbenchResult {
  name: string;
  clients: number;
  tps: number;
  latencyAvgMs: number;
}

/** Parses pgbench's summary (`tps = ... (without initial connection time)`, `latency average`). */
export function parsePgbench(text: string, name: string, clients: number): PgbenchResult {
  const tps = text.match(/^tps = ([\d.]+) \(without initial connection time\)/m) ??
    text.match(/^tps = ([\d.]+)/m);
  const latency = text.match(/^latency average = ([\d.]+) ms/m);
  if (!tps || !latency) throw new Error(`cannot parse pgbench output:\n${text}`);
  return { name, clients, tps: Number(tps[1]), latencyAvgMs: Number(latency[1]) };
}

/** Peak resident memory in MB from /proc/<pid>/status (VmHWM). */
export function parsePeakRssMb(status: string): number {
  const m = status.match(/^VmHWM:\s+(\d+)\s+kB$/m);
  if (!m) throw new Error("no VmHWM line in /proc/<pid>/status");
  return Number(m[1]) / 1024;
}

/** A ratio as text, e.g. `0.83 × pgbench TPC-B`, with a ✔/✘ against a target when given. */
export function ratioText(value: number, base: number, label: string, target?: number): string {
  const r = value / base;
  const mark = target === undefined
    ? ""
    : r >= target
    ? ` ✔ (target ≥ ${target})`
    : ` ✘ (target ≥ ${target})`;
  return `${r.toFixed(2)} × ${label}${mark}`;
}
