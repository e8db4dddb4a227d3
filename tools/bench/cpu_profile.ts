/**
 * Reading a V8 CPU profile (`--cpu-prof`): self time per function and per area of the code,
 * counted only inside a time window (the load run), so start-up and idle time stay out.
 */

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

/** The `.cpuprofile` JSON V8 writes. */
export interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** Self time of one function or area, in microseconds. */
export interface Cost {
  name: string;
  micros: number;
}

/** Where a function lives, in words a reader of the code map knows. */
export function areaOf(url: string, functionName: string): string {
  if (functionName === "(garbage collector)") return "garbage collection";
  if (functionName === "(program)" || functionName === "(root)") return "V8 and native (program)";
  if (/\/npm\/[^/]+\/postgres\//.test(url) || url.includes("/postgres@")) {
    return "postgres driver (npm)";
  }
  if (/\/(hono|@hono)\b/.test(url) || url.includes("/hono@")) return "Hono (npm)";
  if (/\/zod\b|\/zod@/.test(url)) return "zod (npm)";
  const own = /\/(server|db)\/([a-z_]+)/.exec(url);
  if (own && url.startsWith("file://")) return `${own[1]}/${own[2]}`;
  if (url.startsWith("ext:") || url.startsWith("node:") || url === "") return "Deno runtime";
  return "other libraries";
}

/** A profile frame as the tables name it: function, file (no directories) and 1-based line. */
export function frameName(
  frame: { functionName: string; url: string; lineNumber: number },
): string {
  const file = frame.url.replace(/^.*\/(npm\/[^/]+\/)?/, "");
  return `${frame.functionName || "(anonymous)"} ${file}:${frame.lineNumber + 1}`;
}

/**
 * Self time per function and per area over samples taken between `from` and `to` (the
 * profile's own clock, microseconds); `(idle)` is left out.
 */
export function costs(
  profile: CpuProfile,
  from = -Infinity,
  to = Infinity,
): { functions: Cost[]; areas: Cost[]; busyMicros: number } {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const fn = new Map<string, number>();
  const area = new Map<string, number>();
  let at = profile.startTime;
  let busy = 0;
  profile.samples.forEach((id, i) => {
    at += profile.timeDeltas[i];
    // A sample's time is the gap to the next one (the last sample gets none).
    const micros = profile.timeDeltas[i + 1] ?? 0;
    if (at < from || at > to) return;
    const frame = byId.get(id)!.callFrame;
    const { functionName, url } = frame;
    if (functionName === "(idle)") return;
    busy += micros;
    const key = frameName(frame);
    fn.set(key, (fn.get(key) ?? 0) + micros);
    const a = areaOf(url, functionName);
    area.set(a, (area.get(a) ?? 0) + micros);
  });
  const sorted = (m: Map<string, number>) =>
    [...m].map(([name, micros]) => ({ name, micros })).sort((a, b) => b.micros - a.micros);
  return { functions: sorted(fn), areas: sorted(area), busyMicros: busy };
}

/**
 * A markdown table of the top `n` costs: each one's share of the sampled busy time, and that
 * share of `perRequestMicros` (the process's measured CPU per request; the sampler counts wall
 * time, which waiting for a core on a loaded machine inflates).
 */
export function costTable(
  title: string,
  list: Cost[],
  busyMicros: number,
  perRequestMicros: number,
  n = 15,
): string {
  const rows = list.slice(0, n).map((c) => {
    const share = c.micros / busyMicros;
    return `| ${c.name.replaceAll("|", "\\|")} | ${(share * perRequestMicros).toFixed(1)} | ${
      (100 * share).toFixed(1)
    } % |`;
  });
  return [`| ${title} | µs CPU per request | share |`, "|---|---:|---:|", ...rows].join("\n");
}

/** Now on the clock V8 stamps profiles with (CLOCK_MONOTONIC, read via /proc/uptime). */
export async function profileClockNow(): Promise<number> {
  const text = await Deno.readTextFile("/proc/uptime");
  return Number(text.split(" ")[0]) * 1e6;
}
