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

/**
 * Runs `load(url, script, pid)` (wrk with the launch bodies of `script`) against the floor. With
 * `postgresMs` (a launch's PostgreSQL CPU), each query also counts that much CPU's worth of
 * `generate_series` rows, so PostgreSQL holds the floor to about a launch's rate with the
 * machine as busy as under launches. Woken for a few requests at a time, with PostgreSQL's work
 * between them, a server pays more CPU for each (0.23 ms here against 0.09 at 10,000/s:
 * tools/bench/results/2026-11-30-floor-at-rate.md), so baseline C at its own rate understates
 * what the same work costs at a launch's.
 */
export async function launchFloor(
  databaseUrl: string,
  script: string,
  load: (url: string, script: string, pid: number) => Promise<WrkResult>,
  postgresMs?: number,
): Promise<WrkResult & { queryRows: number }> {
  const queryRows = postgresMs ? await rowsFor(databaseUrl, postgresMs) : 0;
  const root = new URL("../../", import.meta.url).pathname;
  const port = freePort();
  const server = spawn(
    ["run", "-A", ...await startV8Flags(root), "tools/bench/floor_server.ts"],
    {
      PORT: String(port),
      DATABASE_URL: databaseUrl,
      FLOOR_QUERY_ROWS: String(queryRows),
    },
    root,
  );
  try {
    const url = `http://127.0.0.1:${port}/portal/api/auth/app/bench`;
    await waitFor(url);
    return Object.assign(await load(url, script, server.pid), { queryRows });
  } finally {
    await stop(server);
  }
}
