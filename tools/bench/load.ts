/** The load generators: wrk against the service, pgbench against PostgreSQL, with CPU notes. */
import {
  commandCpuSeconds,
  parsePgbench,
  type PgbenchResult,
  processCpuSeconds,
} from "./system.ts";
import { parseWrk, type WrkResult } from "./wrk.ts";

/** CPU per request of the server process and of PostgreSQL during each wrk case. */
export const cpuNotes = new Map<WrkResult, string>();
/** The same, as milliseconds of CPU per request. */
export const cpuCosts = new Map<WrkResult, { serverMs: number; postgresMs: number }>();

/** Runs wrk for `seconds`; with `serverPid`, notes the CPU per request of server and PostgreSQL. */
export async function wrk(
  seconds: number,
  name: string,
  url: string,
  connections: number,
  script?: string,
  serverPid?: number,
): Promise<WrkResult> {
  console.log(`  ${name}: ${connections} connections, ${seconds} s ...`);
  const args = ["-t2", `-c${connections}`, `-d${seconds}s`, "--timeout", "10s", "--latency", url];
  if (script) args.unshift("-s", script);
  const before = serverPid
    ? [await processCpuSeconds(serverPid), await commandCpuSeconds("postgres")]
    : null;
  const out = await new Deno.Command("wrk", { args, stdout: "piped", stderr: "piped" }).output();
  const text = new TextDecoder().decode(out.stdout);
  let result: WrkResult;
  try {
    result = parseWrk(text, name, connections);
  } catch (err) {
    throw new Error(`${(err as Error).message}\n${new TextDecoder().decode(out.stderr)}`);
  }
  if (before && serverPid) {
    const served = result.requestsPerSecond * seconds;
    const server = (await processCpuSeconds(serverPid)) - before[0];
    const pg = (await commandCpuSeconds("postgres")) - before[1];
    const costs = { serverMs: server * 1000 / served, postgresMs: pg * 1000 / served };
    cpuCosts.set(result, costs);
    cpuNotes.set(
      result,
      `CPU per request: server ${costs.serverMs.toFixed(2)} ms, PostgreSQL ${
        costs.postgresMs.toFixed(2)
      } ms`,
    );
  }
  return result;
}

/** PostgreSQL CPU per transaction during each pgbench run. */
export const pgCpuNotes = new Map<PgbenchResult, string>();

/** Runs pgbench (64 clients, prepared) for `seconds` on database `db` of `databaseUrl`. */
export async function pgbench(
  seconds: number,
  databaseUrl: string,
  name: string,
  db: string,
  extra: string[],
): Promise<PgbenchResult> {
  console.log(`  ${name}: 64 clients, ${seconds} s ...`);
  const cpuBefore = await commandCpuSeconds("postgres");
  const url = new URL(databaseUrl);
  const out = await new Deno.Command("pgbench", {
    args: [
      "-h",
      url.hostname,
      "-p",
      url.port || "5432",
      "-U",
      decodeURIComponent(url.username || "postgres"),
      "-n",
      "-M",
      "prepared",
      "-c",
      "64",
      "-j",
      "2",
      "-T",
      String(seconds),
      ...extra,
      db,
    ],
    env: url.password ? { PGPASSWORD: decodeURIComponent(url.password) } : {},
    stdout: "piped",
    stderr: "piped",
  }).output();
  const result = parsePgbench(new TextDecoder().decode(out.stdout), name, 64);
  const cpu = (await commandCpuSeconds("postgres")) - cpuBefore;
  pgCpuNotes.set(
    result,
    `PostgreSQL CPU per transaction ${(cpu * 1000 / (result.tps * seconds)).toFixed(2)} ms`,
  );
  return result;
}
