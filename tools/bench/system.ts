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
  return statusMb(status, "VmHWM");
}

/** Resident memory now in MB from /proc/<pid>/status: mapped from files, and anonymous. */
export function parseRssPartsMb(status: string): { file: number; anon: number } {
  return { file: statusMb(status, "RssFile"), anon: statusMb(status, "RssAnon") };
}

/** The `name:  N kB` line of /proc/<pid>/status, in MB. */
function statusMb(status: string, name: string): number {
  const m = status.match(new RegExp(`^${name}:\\s+(\\d+)\\s+kB$`, "m"));
  if (!m) throw new Error(`no ${name} line in /proc/<pid>/status`);
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

/** CPU seconds (user + system) from the text of /proc/<pid>/stat; `ticks` per second. */
export function parseCpuSeconds(stat: string, ticks = 100): number {
  // The command name is in parentheses and may hold spaces: fields follow the last ')'.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  // After the name: state(0) ... utime is field 14 of the line, i.e. index 11 here; stime 12.
  return (Number(fields[11]) + Number(fields[12])) / ticks;
}

/** CPU seconds used so far by the main thread of the process `pid` (its JavaScript's thread). */
export async function mainThreadCpuSeconds(pid: number): Promise<number> {
  return parseCpuSeconds(await Deno.readTextFile(`/proc/${pid}/task/${pid}/stat`));
}

/** CPU seconds used so far by the process `pid`. */
export async function processCpuSeconds(pid: number): Promise<number> {
  return parseCpuSeconds(await Deno.readTextFile(`/proc/${pid}/stat`));
}

/**
 * The machine's CPU time so far from the text of /proc/stat (its first, `cpu`, line): busy and
 * total jiffies over all cores. Busy is everything but idle and iowait.
 */
export function parseMachineCpu(stat: string): { busy: number; total: number } {
  const line = stat.split("\n").find((l) => l.startsWith("cpu "));
  if (!line) throw new Error("no cpu line in /proc/stat");
  const v = line.trim().split(/\s+/).slice(1).map(Number);
  // user nice system idle iowait irq softirq steal (guest time is already in user and nice)
  const total = v.slice(0, 8).reduce((a, b) => a + b, 0);
  return { busy: total - v[3] - v[4], total };
}

/** The machine's busy and total CPU time so far (see parseMachineCpu). */
export async function machineCpu(): Promise<{ busy: number; total: number }> {
  return parseMachineCpu(await Deno.readTextFile("/proc/stat"));
}

/** CPU seconds of the children a process has waited for (cutime + cstime). */
export function parseChildCpuSeconds(stat: string, ticks = 100): number {
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[13]) + Number(fields[14])) / ticks;
}

/**
 * CPU seconds used so far by every process whose command is `name` (e.g. postgres), including
 * the children they have reaped: backends that already exited count through their postmaster.
 */
export async function commandCpuSeconds(name: string): Promise<number> {
  let total = 0;
  for await (const entry of Deno.readDir("/proc")) {
    if (!/^\d+$/.test(entry.name)) continue;
    try {
      const stat = await Deno.readTextFile(`/proc/${entry.name}/stat`);
      const comm = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
      if (comm === name) total += parseCpuSeconds(stat) + parseChildCpuSeconds(stat);
    } catch { /* the process ended */ }
  }
  return total;
}
