/** Runs wrk and parses its output; renders the results table. */

/** One measured case. */
export interface WrkResult {
  name: string;
  connections: number;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  non2xx: number;
  errors: number;
}

function toMs(value: string, unit: string): number {
  const n = Number(value);
  switch (unit) {
    case "us":
      return n / 1000;
    case "ms":
      return n;
    case "s":
      return n * 1000;
    case "m":
      return n * 60_000;
    default:
      throw new Error(`unknown wrk time unit ${unit}`);
  }
}

/** Parses the text `wrk --latency` prints. */
export function parseWrk(text: string, name: string, connections: number): WrkResult {
  const rps = text.match(/Requests\/sec:\s+([\d.]+)/);
  const p50 = text.match(/^\s+50%\s+([\d.]+)(us|ms|s|m)\s*$/m);
  const p99 = text.match(/^\s+99%\s+([\d.]+)(us|ms|s|m)\s*$/m);
  if (!rps || !p50 || !p99) throw new Error(`cannot parse wrk output:\n${text}`);
  const non2xx = text.match(/Non-2xx or 3xx responses:\s+(\d+)/);
  const socket = text.match(
    /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/,
  );
  return {
    name,
    connections,
    requestsPerSecond: Number(rps[1]),
    p50Ms: toMs(p50[1], p50[2]),
    p99Ms: toMs(p99[1], p99[2]),
    non2xx: non2xx ? Number(non2xx[1]) : 0,
    errors: socket ? socket.slice(1).reduce((sum, n) => sum + Number(n), 0) : 0,
  };
}

/** Renders results as a Markdown table; `ratios` maps a case name to [baseline name, label]. */
export function renderTable(
  results: WrkResult[],
  ratios: Record<string, [string, string]> = {},
): string {
  const byName = new Map(results.map((r) => [r.name, r]));
  const lines = [
    "| case | conns | req/s | p50 ms | p99 ms | non-2xx | errors | ratio |",
    "|---|---:|---:|---:|---:|---:|---:|---|",
  ];
  for (const r of results) {
    const ratio = ratios[r.name];
    const base = ratio ? byName.get(ratio[0]) : undefined;
    const ratioText = ratio && base
      ? `${(r.requestsPerSecond / base.requestsPerSecond).toFixed(2)} × ${ratio[1]}`
      : "";
    lines.push(
      `| ${r.name} | ${r.connections} | ${r.requestsPerSecond.toFixed(0)} | ` +
        `${r.p50Ms.toFixed(2)} | ${
          r.p99Ms.toFixed(2)
        } | ${r.non2xx} | ${r.errors} | ${ratioText} |`,
    );
  }
  return lines.join("\n");
}

/** A row of the combined table: a wrk case, a pgbench run, or a figure such as memory. */
export interface TableRow {
  name: string;
  connections?: number;
  /** Requests (or transactions) per second. */
  rate?: number;
  p50Ms?: number;
  p99Ms?: number;
  non2xx?: number;
  errors?: number;
  /** Ratio or other note, already rendered. */
  note?: string;
}

/** A wrk result as a table row. */
export function wrkRow(r: WrkResult, note = ""): TableRow {
  return {
    name: r.name,
    connections: r.connections,
    rate: r.requestsPerSecond,
    p50Ms: r.p50Ms,
    p99Ms: r.p99Ms,
    non2xx: r.non2xx,
    errors: r.errors,
    note,
  };
}

/** Renders rows as a Markdown table; missing figures show as "–". */
export function renderRows(rows: TableRow[]): string {
  const n = (v: number | undefined, digits: number) => v === undefined ? "–" : v.toFixed(digits);
  const lines = [
    "| case | conns | req/s | p50 ms | p99 ms | non-2xx | errors | ratio / note |",
    "|---|---:|---:|---:|---:|---:|---:|---|",
  ];
  for (const r of rows) {
    lines.push(
      `| ${r.name} | ${r.connections ?? "–"} | ${n(r.rate, 0)} | ${n(r.p50Ms, 2)} | ` +
        `${n(r.p99Ms, 2)} | ${r.non2xx ?? "–"} | ${r.errors ?? "–"} | ${r.note ?? ""} |`,
    );
  }
  return lines.join("\n");
}
