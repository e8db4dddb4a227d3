/**
 * The verdict of a bench run against issue 37's targets and issue 36's screen-sharing ones: one
 * line per target, `ok`, `FAIL`, or `n/a` when the run did not measure what the target needs (a
 * figure missing, or the drain run with fewer events than the target names, as --quick does).
 */

/** The figures the targets read; any may be missing (not measured in this run). */
export interface Figures {
  /** Launch p99 at 16 connections (ms) and launches per second at 64, single process. */
  launch16P99Ms?: number;
  launch64Rps?: number;
  /** launch_apply per second called by pgbench at 64 connections (the database limit). */
  databaseLimit64Tps?: number;
  /** The database limit's best run (any connection count), shown beside the 64 one. */
  databaseLimitBest?: { tps: number; connections: number };
  tpcbTps?: number;
  /** TPC-B again once every service case ran: how far the machine's speed moved during the run. */
  tpcbEndTps?: number;
  selectOnlyTps?: number;
  /** PostgreSQL CPU per TPC-B transaction and per launch (64 connections), ms. */
  tpcbPostgresMs?: number;
  launchPostgresMs?: number;
  /** Server CPU per launch (64 connections) and per delivered callback event, ms. */
  launchServerMs?: number;
  eventServerMs?: number;
  /** Baseline C: server CPU per request of a launch's shape with no service work (ms). */
  launchFloorServerMs?: number;
  /** Baseline C's rate, and baseline C held to the launch's own rate: its server CPU and rate. */
  launchFloorRps?: number;
  launchFloorAtRate?: { serverMs: number; rps: number };
  /** Launches a second with no callback URL (the rate the launch's own CPU was measured at). */
  launchOwnRps?: number;
  /** Server CPU per launch of an app with no callback URL: the launch's own, measured (ms). */
  launchOwnServerMs?: number;
  getOneRps?: number;
  getPageRps?: number;
  getPageP99Ms?: number;
  tokenRps?: number;
  drain?: { eventsPerSecond: number; count: number; exact: boolean };
  launchAllCoresRps?: number;
  getAllCoresRps?: number;
  /** The single process measured right before the all-cores cases (else launch64Rps/getOneRps). */
  launchOneBeforeAllCoresRps?: number;
  getOneBeforeAllCoresRps?: number;
  launchObservedRps?: number;
  getObservedRps?: number;
  /** The single process measured right before the observed cases (else launch64Rps/getOneRps). */
  launchOffBeforeObservedRps?: number;
  getOffBeforeObservedRps?: number;
  /**
   * Peak RSS, MB, over the launch and GET cases: of the observed process (which runs only those),
   * and of the single process with observability off (after its launch, token and GET one cases;
   * the list page it serves later sets its whole-run peak, reported apart).
   */
  rssObservedMb?: number;
  rssMb?: number;
  /**
   * The machine's cores and PostgreSQL's CPU per request of the cases judged against a pgbench
   * baseline (ms): what the database alone allows, shown beside those targets.
   */
  cores?: number;
  getOnePostgresMs?: number;
  getPagePostgresMs?: number;
  tokenPostgresMs?: number;
  eventPostgresMs?: number;
  /** The drain's receiver's CPU per event (ms): the CRM's side, on the same cores. */
  eventReceiverMs?: number;
  /** The server's CPU per request of the same cases (ms): what both together allow. */
  getOneServerMs?: number;
  getPageServerMs?: number;
  tokenServerMs?: number;
  /** Screen sharing: the customer's click on Share to the agent's first frame, p95 (ms). */
  remoteFirstFrameP95Ms?: number;
  /** Screen sharing: signaling send → receive across two processes, 500 sockets, p99 (ms). */
  remoteSignalingP99Ms?: number;
}

/** Events the callback drain target is stated for. */
export const DRAIN_TARGET_EVENTS = 100_000;

type Mark = "ok" | "FAIL" | "n/a";

function line(mark: Mark, target: string, figures: string): string {
  return `${mark.padEnd(4)} ${target}: ${figures}`;
}

function defined(...values: (number | undefined)[]): boolean {
  return values.every((v) => v !== undefined && Number.isFinite(v));
}

/** CPU per request of a case (ms) and the machine's logical CPUs: what its ceilings read. */
interface Costs {
  postgresMs?: number;
  serverMs?: number;
  /** The load generator's CPU per request, where it was measured (the drain's receiver). */
  loadMs?: number;
  cores?: number;
}

/**
 * `value / base ≥ min` as a verdict line (value and base shown), with what PostgreSQL alone, and
 * the server and PostgreSQL together, allow when `costs` gives their CPU per request and the cores
 * (`cpuCeiling`).
 */
function ratioAtLeast(
  target: string,
  value: number | undefined,
  base: number | undefined,
  min: number,
  costs?: Costs,
): string {
  if (!defined(value, base)) return line("n/a", target, "not measured");
  const r = value! / base!;
  return line(
    r >= min ? "ok" : "FAIL",
    target,
    `${r.toFixed(2)} × (${value!.toFixed(0)}/s vs ${base!.toFixed(0)}/s)` +
      (costs ? cpuCeiling(value, costs, base, min) : ""),
  );
}

/**
 * What the machine's CPU allows a case judged by `measured / base ≥ min`, shown after its figures.
 * PostgreSQL alone, with `postgresMs` of its CPU per request (or per event) on every one of `cores`
 * logical CPUs and nothing left for the service or the load generator, serves at most
 * `cores / postgresMs` a second: below `min`, only cheaper SQL could meet the target. With the
 * server's `serverMs` too, at most `cores / (serverMs + postgresMs)`: below `min` the target needs
 * the server's CPU per request cut to what is named (`cores / (min × base) − postgresMs`); at or
 * above it, their CPU would allow the target and the shortfall is waiting, or the load generator's
 * CPU, which is counted where it was measured (`loadMs`, the drain's receiver) and not for wrk.
 * Only a case short of its target gets this.
 */
export function cpuCeiling(
  measured: number | undefined,
  costs: Costs,
  base: number | undefined,
  min: number,
): string {
  const { postgresMs, serverMs, cores } = costs;
  const loadMs = costs.loadMs ?? 0;
  if (!defined(measured, postgresMs, base, cores) || postgresMs! <= 0) return "";
  const rate = cores! * 1000 / postgresMs!;
  const r = rate / base!;
  const alone =
    `; PostgreSQL alone (${postgresMs!.toFixed(2)} ms of its CPU each, ${cores} logical ` +
    `CPUs) allows at most ${r.toFixed(2)} × (${rate.toFixed(0)}/s)`;
  if (r < min) return alone + ": out of reach at this PostgreSQL cost";
  if (!defined(serverMs) || serverMs! <= 0) return alone;
  // A case that meets its target needs no explaining.
  if (measured! / base! >= min) return alone;
  const both = cores! * 1000 / (serverMs! + postgresMs! + loadMs);
  const rb = both / base!;
  const need = cores! * 1000 / (min * base!) - postgresMs! - loadMs;
  const load = costs.loadMs !== undefined ? ` and the receiver's ${loadMs.toFixed(3)} ms` : "";
  const shown = `; with the server's ${serverMs!.toFixed(3)} ms${load}, at most ` +
    `${rb.toFixed(2)} × (${both.toFixed(0)}/s)`;
  if (rb >= min) {
    const uncounted = costs.loadMs === undefined ? " (the load generator's not counted)" : "";
    return alone + shown + `: their CPU would allow the target${uncounted}; the rest is waiting`;
  }
  return alone + shown +
    (need < 0.0005
      ? ": out of reach, even with no server CPU"
      : `: out of reach unless the server's CPU each drops to ${need.toFixed(3)} ms`);
}

/** `value ≤ max` as a verdict line. */
function atMost(target: string, value: number | undefined, max: number, unit: string): string {
  if (!defined(value)) return line("n/a", target, "not measured");
  const digits = max < 1 ? 2 : 0;
  return line(value! <= max ? "ok" : "FAIL", target, `${value!.toFixed(digits)} ${unit}`);
}

/** How far the end's TPC-B may be from the start's before the run's ratios are not comparable. */
export const STEADY_WITHIN = 0.15;

/**
 * Whether the machine kept its speed through the run: TPC-B measured again at the end within
 * STEADY_WITHIN of the start. The ratios compare cases minutes apart with baselines measured at
 * the start, so on a machine whose speed drifted (a shared host) they say little.
 */
export function steadyLine(f: Pick<Figures, "tpcbTps" | "tpcbEndTps">): string {
  const target = `machine steady: TPC-B at the end within ${STEADY_WITHIN * 100} % of the start`;
  if (!defined(f.tpcbTps, f.tpcbEndTps)) return line("n/a", target, "not measured");
  const r = f.tpcbEndTps! / f.tpcbTps!;
  const steady = Math.abs(r - 1) <= STEADY_WITHIN;
  return line(
    steady ? "ok" : "FAIL",
    target,
    `${r.toFixed(2)} × (${f.tpcbEndTps!.toFixed(0)}/s vs ${f.tpcbTps!.toFixed(0)}/s)` +
      (steady ? "" : ": the ratios below are not comparable"),
  );
}

/** The target for a launch's own server CPU, ms. */
const OWN_LAUNCH_MS = 0.3;

/**
 * The runtime's floor beside a launch's own server CPU: baseline C at its own rate, and (when
 * measured) held to the launch's rate, where a request costs more (tools/bench/floor.ts); the
 * service's work is the launch's figure less the floor at the same rate.
 */
function floorText(f: Figures, own: number): string {
  if (!defined(f.launchFloorServerMs)) return "";
  const rate = (rps?: number) => rps === undefined ? "" : ` at ${rps.toFixed(0)}/s`;
  const atRate = f.launchFloorAtRate;
  const floor = atRate?.serverMs ?? f.launchFloorServerMs!;
  return `; the runtime's floor (baseline C) ${f.launchFloorServerMs!.toFixed(2)} ms` +
    rate(f.launchFloorRps) +
    (atRate
      ? `, ${atRate.serverMs.toFixed(2)} ms${rate(atRate.rps)} (the launch's ` +
        `${f.launchOwnRps?.toFixed(0) ?? "?"}/s)`
      : "") +
    `; the service's work ${(own - floor).toFixed(2)} ms` +
    (atRate
      ? `, where the target leaves it ${Math.max(0, OWN_LAUNCH_MS - floor).toFixed(2)} ms`
      : "");
}

/** One line per issue-37 target, after the line that says whether the run can be trusted. */
export function verdictLines(f: Figures): string[] {
  const lines = [
    steadyLine(f),
    ratioAtLeast("launch@64 ≥ 0.8 × database limit", f.launch64Rps, f.databaseLimit64Tps, 0.8) +
    (f.databaseLimitBest && defined(f.launch64Rps)
      ? `; ${(f.launch64Rps! / f.databaseLimitBest.tps).toFixed(2)} × its best run (${
        f.databaseLimitBest.tps.toFixed(0)
      }/s at ${f.databaseLimitBest.connections} connections)`
      : ""),
    ratioAtLeast("launch@64 ≥ 0.75 × TPC-B", f.launch64Rps, f.tpcbTps, 0.75, {
      postgresMs: f.launchPostgresMs,
      serverMs: f.launchServerMs,
      cores: f.cores,
    }),
    atMost("launch p99@16 ≤ 50 ms", f.launch16P99Ms, 50, "ms"),
  ];
  if (defined(f.launchPostgresMs, f.tpcbPostgresMs)) {
    const r = f.launchPostgresMs! / f.tpcbPostgresMs!;
    lines.push(line(
      r <= 1.3 ? "ok" : "FAIL",
      "PostgreSQL CPU per launch ≤ 1.3 × TPC-B's per transaction",
      `${r.toFixed(2)} × (${f.launchPostgresMs!.toFixed(2)} ms vs ${
        f.tpcbPostgresMs!.toFixed(2)
      } ms)`,
    ));
  } else {
    lines.push(line("n/a", "PostgreSQL CPU per launch ≤ 1.3 × TPC-B's", "not measured"));
  }
  // The launch's own server CPU: measured on launches that emit no callback event where the run
  // has them, else estimated as the launch's figure less the drain's CPU per event.
  const measuredOwn = defined(f.launchOwnServerMs);
  const own = measuredOwn
    ? f.launchOwnServerMs!
    : defined(f.launchServerMs, f.eventServerMs)
    ? f.launchServerMs! - f.eventServerMs!
    : undefined;
  const ownHow = measuredOwn
    ? `launches with no callback URL; ${
      defined(f.launchServerMs) ? f.launchServerMs!.toFixed(2) : "?"
    } ms with their callbacks delivered`
    : `${f.launchServerMs?.toFixed(2)} ms less ${
      f.eventServerMs?.toFixed(2)
    } ms for its callback event`;
  lines.push(
    own === undefined ? line("n/a", "server CPU per launch ≤ 0.30 ms (own)", "not measured") : line(
      own <= OWN_LAUNCH_MS ? "ok" : "FAIL",
      "server CPU per launch ≤ 0.30 ms (own)",
      `${own.toFixed(2)} ms (${ownHow})` +
        floorText(f, own),
    ),
    atMost("server CPU per delivered callback event ≤ 0.15 ms", f.eventServerMs, 0.15, "ms"),
    ratioAtLeast("GET one session ≥ 0.6 × select-only", f.getOneRps, f.selectOnlyTps, 0.6, {
      postgresMs: f.getOnePostgresMs,
      serverMs: f.getOneServerMs,
      cores: f.cores,
    }),
  );
  if (defined(f.getPageRps, f.tpcbTps, f.getPageP99Ms)) {
    const r = f.getPageRps! / f.tpcbTps!;
    lines.push(line(
      r >= 0.92 && f.getPageP99Ms! <= 333 ? "ok" : "FAIL",
      "list page of 50 ≥ 0.92 × TPC-B at p99 ≤ 333 ms",
      `${r.toFixed(2)} × (${f.getPageRps!.toFixed(0)}/s vs ${f.tpcbTps!.toFixed(0)}/s), p99 ${
        f.getPageP99Ms!.toFixed(0)
      } ms${
        cpuCeiling(
          f.getPageRps,
          {
            postgresMs: f.getPagePostgresMs,
            serverMs: f.getPageServerMs,
            cores: f.cores,
          },
          f.tpcbTps,
          0.92,
        )
      }`,
    ));
  } else {
    lines.push(line("n/a", "list page of 50 ≥ 0.92 × TPC-B at p99 ≤ 333 ms", "not measured"));
  }
  lines.push(
    ratioAtLeast("token issuance ≥ 3 × TPC-B", f.tokenRps, f.tpcbTps, 3, {
      postgresMs: f.tokenPostgresMs,
      serverMs: f.tokenServerMs,
      cores: f.cores,
    }),
  );
  const drainTarget = `callback drain ≥ 2 × TPC-B events/s, ${DRAIN_TARGET_EVENTS} none lost ` +
    "or doubled";
  if (!f.drain || !defined(f.tpcbTps)) {
    lines.push(line("n/a", drainTarget, "not measured"));
  } else {
    const r = f.drain.eventsPerSecond / f.tpcbTps!;
    const figures =
      `${r.toFixed(2)} × (${f.drain.eventsPerSecond.toFixed(0)} events/s vs ${
        f.tpcbTps!.toFixed(0)
      }/s), ${f.drain.count} events ${f.drain.exact ? "each once" : "LOST OR DOUBLED"}` +
      cpuCeiling(
        f.drain.eventsPerSecond,
        {
          postgresMs: f.eventPostgresMs,
          serverMs: f.eventServerMs,
          loadMs: f.eventReceiverMs,
          cores: f.cores,
        },
        f.tpcbTps,
        2,
      );
    const mark: Mark = !f.drain.exact || r < 2
      ? "FAIL"
      : f.drain.count < DRAIN_TARGET_EVENTS
      ? "n/a"
      : "ok";
    lines.push(line(mark, drainTarget, figures));
  }
  lines.push(
    ratioAtLeast(
      "all-cores launch ≥ one process",
      f.launchAllCoresRps,
      f.launchOneBeforeAllCoresRps ?? f.launch64Rps,
      1,
    ),
    ratioAtLeast(
      "all-cores GET ≥ one process",
      f.getAllCoresRps,
      f.getOneBeforeAllCoresRps ?? f.getOneRps,
      1,
    ),
    ratioAtLeast(
      "observability on: launch loses ≤ 10 %",
      f.launchObservedRps,
      f.launchOffBeforeObservedRps ?? f.launch64Rps,
      0.9,
    ),
    ratioAtLeast(
      "observability on: GET loses ≤ 10 %",
      f.getObservedRps,
      f.getOffBeforeObservedRps ?? f.getOneRps,
      0.9,
    ),
    atMost("peak RSS with observability on ≤ 170 MB", f.rssObservedMb, 170, "MB"),
    atMost("peak RSS with observability off (launch, GET) ≤ 150 MB", f.rssMb, 150, "MB"),
    ...remoteVerdictLines(f),
  );
  return lines;
}

/** One line per issue-36 screen-sharing target (Infinity: runs that never got there). */
export function remoteVerdictLines(f: Figures): string[] {
  const frame = "screen sharing: click to first frame p95 ≤ 2000 ms";
  return [
    f.remoteFirstFrameP95Ms === Infinity
      ? line("FAIL", frame, "more than 5 % of the runs showed no frame")
      : atMost(frame, f.remoteFirstFrameP95Ms, 2000, "ms"),
    atMost(
      "screen sharing: signaling p99 ≤ 50 ms (500 sockets, 2 processes)",
      f.remoteSignalingP99Ms,
      50,
      "ms",
    ),
  ];
}
