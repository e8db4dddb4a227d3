/**
 * Baseline C, the launch's floor: tools/bench/floor_server.ts (Deno's HTTP server and the
 * database driver doing a launch's shape of work and nothing of the service's) on the bench
 * database, loaded as the launch cases load the service. Its server CPU per request is what a
 * launch's own server CPU cannot go below on this machine and runtime.
 */
import postgres from "postgres";
import type { WrkResult } from "./wrk.ts";
import { freePort, spawn, stop, waitFor } from "./processes.ts";
import { startV8Flags } from "./bench_service.ts";

/**
 * Rows of `generate_series` that take PostgreSQL about `ms` of CPU to count here: from the fastest
 * of five timed counts of 20,000 (on an idle machine a backend's wall time is its CPU time).
 */
async function rowsFor(databaseUrl: string, ms: number): Promise<number> {
  const sql = postgres(databaseUrl, { max: 1, onnotice: () => {} });
  try {
    let best = Infinity;
    for (let i = 0; i < 5; i++) {
      const t0 = performance.now();
      await sql`select count(*) from generate_series(1, 20000)`;
      best = Math.min(best, performance.now() - t0);
    }
    return Math.max(1, Math.round((20_000 * ms) / best));
  } finally {
    await sql.end();
  }
}

/** Holding the floor to a launch's rate: the launch's PostgreSQL CPU and rate, and a probe. */
export interface RateMatch {
  /** PostgreSQL CPU per launch, ms: the first guess at each query's rows. */
  postgresMs: number;
  /** Launches a second: the rate to hold the floor to. */
  rate: number;
  /** A short load of the floor at `url` with `script`: its requests a second. */
  probe: (url: string, script: string) => Promise<number>;
}

/**
 * Runs `load(url, script, pid)` (wrk with the launch bodies of `script`) against the floor. With
 * `match`, each query also counts rows of `generate_series`, so that PostgreSQL holds the floor
 * to about a launch's rate with the machine as busy as under launches. Woken for a few requests
 * at a time, with PostgreSQL's work between them, a server pays more CPU for each (0.23 ms here
 * against 0.09 at 10,000/s: tools/bench/results/2026-11-30-floor-at-rate.md), so baseline C at
 * its own rate understates what the same work costs at a launch's. The rows start at the
 * launch's PostgreSQL CPU; a launch also waits on WAL flushes and locks, so two short probes
 * then scale them to the launch's rate (the floor's rate falls as its rows grow).
 */
export async function launchFloor(
  databaseUrl: string,
  script: string,
  load: (url: string, script: string, pid: number) => Promise<WrkResult>,
  match?: RateMatch,
): Promise<WrkResult & { queryRows: number }> {
  let queryRows = 0;
  if (match) {
    queryRows = await rowsFor(databaseUrl, match.postgresMs);
    for (let i = 0; i < 2; i++) {
      const probed = await withFloor(databaseUrl, queryRows, (url) => match.probe(url, script));
      queryRows = Math.max(1, Math.round((queryRows * probed) / match.rate));
    }
  }
  const result = await withFloor(databaseUrl, queryRows, (url, pid) => load(url, script, pid));
  return Object.assign(result, { queryRows });
}

/** Runs `run` against a floor server whose queries count `rows` rows too. */
async function withFloor<T>(
  databaseUrl: string,
  rows: number,
  run: (url: string, pid: number) => Promise<T>,
): Promise<T> {
  const root = new URL("../../", import.meta.url).pathname;
  const port = freePort();
  const server = spawn(
    ["run", "-A", ...await startV8Flags(root), "tools/bench/floor_server.ts"],
    { PORT: String(port), DATABASE_URL: databaseUrl, FLOOR_QUERY_ROWS: String(rows) },
    root,
  );
  try {
    const url = `http://127.0.0.1:${port}/portal/api/auth/app/bench`;
    await waitFor(url);
    return await run(url, server.pid);
  } finally {
    await stop(server);
  }
}
