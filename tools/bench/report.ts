/**
 * The bench's table rows, notes and verdict from what the cases measured (tools/bench/main.ts
 * runs them): ratios to the baselines, CPU per request, peak memory, the issue-37 verdict.
 */
import type { DrainResult } from "./drain.ts";
import { cpuCosts, cpuNotes, pgCpuCosts, pgCpuNotes } from "./load.ts";
import type { PgbenchResult } from "./system.ts";
import { ratioText } from "./system.ts";
import { type Figures, verdictLines } from "./verdict.ts";
import { type TableRow, type WrkResult, wrkRow } from "./wrk.ts";
import type { RemoteBench } from "./remote.ts";

type Pgbench = PgbenchResult & { aborted: number };

/** Everything one run measured. */
export interface Measured {
  hello: WrkResult;
  /** Baseline C: a launch's shape of work with none of the service's (tools/bench/floor.ts). */
  floor: WrkResult;
  /** Baseline C held to a launch's rate by PostgreSQL's work (tools/bench/floor.ts). */
  floorAtRate?: WrkResult & { queryRows: number };
  /** Launches of the bench app with no callback URL (no events): the launch's own server CPU. */
  launchOwn: WrkResult;
  tpcb: Pgbench;
  /** TPC-B once more after every service case (the machine's drift during the run). */
  tpcbEnd?: Pgbench;
  selectOnly: Pgbench;
  /** Single process: launch 16, launch 64, token, GET one, GET page. */
  single: WrkResult[];
  drained: DrainResult;
  clicks: TableRow[];
  /** All cores: launch, GET one. */
  multi: WrkResult[];
  /** Observability on: launch, GET one; and that process's peak RSS and exports. */
  observed: WrkResult[];
  rssObserved: number;
  observedCheck: { exports: number; metrics: boolean };
  /** Three processes behind PgBouncer: launch, GET one. */
  scaled: WrkResult[];
  /**
   * The single process's launch and GET one, measured again right before each variant (all
   * cores, observability on, PgBouncer): what that variant's "× one" and "× off" compare with.
   */
  paired: { multi: WrkResult[]; observed: WrkResult[]; scaled: WrkResult[] };
  /** launch_apply by pgbench at 16 and 64 connections. */
  databaseLimit: Pgbench[];
  rssSingle: number;
  /** The single process's peak after its launch, token and GET one cases (before the list page). */
  rssLaunchGet: number | undefined;
  rssParallel: number;
  rssScaled: number;
  roundTrips: number;
  countedLaunches: number;
  /** Screen sharing: click to first frame, signaling fan-out. */
  remote: RemoteBench;
}

/**
 * The rows of one variant (all cores, observability on, PgBouncer): the single process's launch
 * and GET one measured right before it, or alternated with it (`pair`), each with its ratio to
 * the earlier single-process row (`l64`, `getOne`); then the variant's runs (launch, GET one, more
 * launches), each with its ratio to the paired run of its kind.
 */
function variantRows(
  pair: WrkResult[],
  runs: WrkResult[],
  label: string,
  l64: WrkResult,
  getOne: WrkResult,
): TableRow[] {
  const ratio = (r: WrkResult, base: WrkResult, what: string) =>
    wrkRow(r, ratioText(r.requestsPerSecond, base.requestsPerSecond, what));
  const [launch, get] = pair;
  return [
    ratio(launch, l64, "the row above"),
    ratio(get, getOne, "the row above"),
    ...runs.map((r, i) => ratio(r, i === 1 ? get : launch, `${label} (paired)`)),
  ];
}

/** The table rows, the notes under it and the verdict lines. */
export function report(m: Measured): { rows: TableRow[]; notes: string[]; verdict: string[] } {
  const tps = m.tpcb.tps;
  const [l16, l64, tok, getOne, getPage] = m.single;
  // The database limit at the same connection count, and the best of its runs.
  const limitOf = (conns: number) => m.databaseLimit.find((r) => r.clients === conns);
  const best = m.databaseLimit.reduce<Pgbench | undefined>(
    (b, r) => !b || r.tps > b.tps ? r : b,
    undefined,
  );
  const launchNote = (r: WrkResult) => {
    const same = limitOf(r.connections);
    return [
      ratioText(r.requestsPerSecond, tps, "TPC-B"),
      ...(same ? [ratioText(r.requestsPerSecond, same.tps, "database limit")] : []),
      ...(best ? [ratioText(r.requestsPerSecond, best.tps, `its best (${best.clients})`)] : []),
    ].join("; ");
  };
  const pgRow = (r: Pgbench, note: string): TableRow => ({
    name: r.name,
    connections: r.clients,
    rate: r.tps,
    errors: r.aborted,
    note: `${note}avg latency ${r.latencyAvgMs.toFixed(1)} ms`,
  });
  const drained = m.drained;
  const exact = drained.received === drained.count && drained.distinct === drained.count &&
    drained.undelivered === 0;
  const floorServerMs = cpuCosts.get(m.floor)?.serverMs;
  const floorAtRateMs = m.floorAtRate && cpuCosts.get(m.floorAtRate)?.serverMs;
  const rows: TableRow[] = [
    wrkRow(m.hello, "baseline A"),
    wrkRow(
      m.floor,
      `baseline C: the launch's bodies, one query, no service work; server ${
        floorServerMs?.toFixed(3) ?? "?"
      } ms CPU each`,
    ),
    ...(m.floorAtRate
      ? [wrkRow(
        m.floorAtRate,
        `baseline C, each query also counting ${m.floorAtRate.queryRows} rows: the rate of ` +
          `"launch, no callbacks"; server ${floorAtRateMs?.toFixed(3) ?? "?"} ms CPU each`,
      )]
      : []),
    pgRow(m.tpcb, "baseline B; "),
    pgRow(m.selectOnly, ""),
    ...(m.tpcbEnd
      ? [pgRow(m.tpcbEnd, `${ratioText(m.tpcbEnd.tps, tps, "the start")} (drift); `)]
      : []),
    ...m.databaseLimit.map((r) => pgRow(r, "launch's database work alone; ")),
    wrkRow(l16, launchNote(l16)),
    wrkRow(l64, launchNote(l64)),
    wrkRow(tok, ratioText(tok.requestsPerSecond, tps, "TPC-B")),
    wrkRow(getOne, ratioText(getOne.requestsPerSecond, m.selectOnly.tps, "select-only")),
    wrkRow(getPage, ratioText(getPage.requestsPerSecond, tps, "TPC-B")),
    wrkRow(
      m.launchOwn,
      `${ratioText(m.launchOwn.requestsPerSecond, l64.requestsPerSecond, "with callbacks")}; ` +
        `the app without a callback URL: the launch's own server CPU`,
    ),
    ...variantRows(m.paired.multi, m.multi, "one", l64, getOne),
    ...variantRows(m.paired.observed, m.observed, "off", l64, getOne),
    ...variantRows(m.paired.scaled, m.scaled, "one", l64, getOne),
    { name: "peak RSS, single process", note: `${m.rssSingle.toFixed(0)} MB` },
    {
      name: "peak RSS, single process, launch and GET cases",
      note: `${m.rssLaunchGet?.toFixed(0) ?? "n/a"} MB (before the list page)`,
    },
    { name: "peak RSS, observability on", note: `${m.rssObserved.toFixed(0)} MB` },
    { name: "peak RSS, all cores", note: `${m.rssParallel.toFixed(0)} MB` },
    { name: "peak RSS, 3 processes behind PgBouncer", note: `${m.rssScaled.toFixed(0)} MB` },
    {
      name: `callback drain, ${drained.count} queued events`,
      rate: drained.eventsPerSecond,
      note:
        `${ratioText(drained.eventsPerSecond, tps, "TPC-B")}; ${
          drained.seconds.toFixed(1)
        } s; received ${drained.received}, distinct ${drained.distinct}, undelivered ` +
        `${drained.undelivered} ${exact ? "✔" : "✘"} (none lost or doubled)`,
    },
    ...m.clicks,
    {
      name: "database round trips per launch",
      note: `${m.roundTrips.toFixed(2)} (driver count over ${m.countedLaunches} launches)`,
    },
    ...m.remote.rows,
  ];
  const notes: string[] = [];
  for (const r of [m.tpcb, m.selectOnly, ...(m.tpcbEnd ? [m.tpcbEnd] : []), ...m.databaseLimit]) {
    notes.push(`${r.name} (${r.clients} connections): ${pgCpuNotes.get(r)}.`);
  }
  const pairs = [m.paired.multi, m.multi, m.paired.observed, m.observed, m.paired.scaled, m.scaled];
  for (const r of [...m.single, ...pairs.flat()]) {
    const note = cpuNotes.get(r);
    if (note) notes.push(`${r.name} (${r.connections} connections): ${note}.`);
  }
  notes.push(
    `Observability on: ${m.observedCheck.exports} OTLP exports received, GET /metrics ` +
      `${m.observedCheck.metrics ? "answered" : "FAILED"}.`,
  );
  const perEvent = drained.cpu;
  if (perEvent) {
    notes.push(
      `callback drain: CPU per delivered event: server ${perEvent.serverMs.toFixed(2)} ms, ` +
        `PostgreSQL ${perEvent.postgresMs.toFixed(2)} ms` +
        (perEvent.receiverMs !== undefined
          ? `, the receiver ${perEvent.receiverMs.toFixed(3)} ms`
          : "") +
        ` (a launch's figures include its one event); the server's main thread ` +
        `${(perEvent.mainThreadBusy * 100).toFixed(0)} % busy.`,
    );
  }
  const l64Cpu = cpuCosts.get(l64);
  const figures: Figures = {
    launch16P99Ms: l16.p99Ms,
    launch64Rps: l64.requestsPerSecond,
    databaseLimit64Tps: limitOf(64)?.tps,
    databaseLimitBest: best && { tps: best.tps, connections: best.clients },
    tpcbTps: tps,
    tpcbEndTps: m.tpcbEnd?.tps,
    selectOnlyTps: m.selectOnly.tps,
    tpcbPostgresMs: pgCpuCosts.get(m.tpcb),
    launchPostgresMs: l64Cpu?.postgresMs,
    launchServerMs: l64Cpu?.serverMs,
    launchFloorServerMs: floorServerMs,
    launchFloorRps: m.floor.requestsPerSecond,
    launchFloorAtRate: floorAtRateMs === undefined
      ? undefined
      : { serverMs: floorAtRateMs, rps: m.floorAtRate!.requestsPerSecond },
    launchOwnRps: m.launchOwn.requestsPerSecond,
    launchOwnServerMs: cpuCosts.get(m.launchOwn)?.serverMs,
    eventServerMs: perEvent?.serverMs,
    cores: navigator.hardwareConcurrency,
    getOnePostgresMs: cpuCosts.get(getOne)?.postgresMs,
    getPagePostgresMs: cpuCosts.get(getPage)?.postgresMs,
    tokenPostgresMs: cpuCosts.get(tok)?.postgresMs,
    eventPostgresMs: perEvent?.postgresMs,
    eventReceiverMs: perEvent?.receiverMs,
    getOneServerMs: cpuCosts.get(getOne)?.serverMs,
    getPageServerMs: cpuCosts.get(getPage)?.serverMs,
    tokenServerMs: cpuCosts.get(tok)?.serverMs,
    getOneRps: getOne.requestsPerSecond,
    getPageRps: getPage.requestsPerSecond,
    getPageP99Ms: getPage.p99Ms,
    tokenRps: tok.requestsPerSecond,
    drain: { eventsPerSecond: drained.eventsPerSecond, count: drained.count, exact },
    launchAllCoresRps: m.multi[0].requestsPerSecond,
    getAllCoresRps: m.multi[1].requestsPerSecond,
    launchOneBeforeAllCoresRps: m.paired.multi[0]?.requestsPerSecond,
    getOneBeforeAllCoresRps: m.paired.multi[1]?.requestsPerSecond,
    launchObservedRps: m.observed[0].requestsPerSecond,
    getObservedRps: m.observed[1].requestsPerSecond,
    launchOffBeforeObservedRps: m.paired.observed[0]?.requestsPerSecond,
    getOffBeforeObservedRps: m.paired.observed[1]?.requestsPerSecond,
    rssObservedMb: m.rssObserved,
    rssMb: m.rssLaunchGet,
    ...m.remote.figures,
  };
  return { rows, notes, verdict: verdictLines(figures) };
}

/** What the peak RSS is made of: the service's resident memory after GET one, and hello-world's. */
export function residentText(
  service: { file: number; anon: number } | undefined,
  hello: { peak: number; file: number; anon: number },
): string {
  const mb = (n: number) => n.toFixed(0);
  return `Resident at the end of GET one, MB: ${
    service ? `${mb(service.file)} mapped from files, ${mb(service.anon)} anonymous` : "n/a"
  } (files: the deno binary's code and V8's code cache; anonymous: V8's heap and malloc's). ` +
    `Hello-world on the same Deno: peak ${mb(hello.peak)} MB, ${mb(hello.file)} from files.`;
}
