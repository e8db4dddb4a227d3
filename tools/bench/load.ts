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

/** CPU of process `pid` and of PostgreSQL per request while `work` runs (it answers its count). */
async function cpuPerRequest<T>(
  pid: number,
  work: () => Promise<T>,
  count: (result: T) => number,
): Promise<{ result: T; costs: { serverMs: number; postgresMs: number } }> {
  const before = [await processCpuSeconds(pid), await commandCpuSeconds("postgres")];
  const result = await work();
  const served = count(result);
  const server = (await processCpuSeconds(pid)) - before[0];
  const pg = (await commandCpuSeconds("postgres")) - before[1];
  return { result, costs: { serverMs: server * 1000 / served, postgresMs: pg * 1000 / served } };
}

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
  const run = async () => {
    const out = await new Deno.Command("wrk", { args, stdout: "piped", stderr: "piped" }).output();
    try {
      return parseWrk(new TextDecoder().decode(out.stdout), name, connections);
    } catch (err) {
      throw new Error(`${(err as Error).message}\n${new TextDecoder().decode(out.stderr)}`);
    }
  };
  if (!serverPid) return await run();
  const { result, costs } = await cpuPerRequest(
    serverPid,
    run,
    (r) => r.requestsPerSecond * seconds,
  );
  cpuCosts.set(result, costs);
  cpuNotes.set(
    result,
    `CPU per request: server ${costs.serverMs.toFixed(2)} ms, PostgreSQL ${
      costs.postgresMs.toFixed(2)
    } ms`,
  );
  return result;
}

/** PostgreSQL CPU per transaction during each pgbench run. */
export const pgCpuNotes = new Map<PgbenchResult, string>();
/** The same, as milliseconds of CPU per transaction. */
export const pgCpuCosts = new Map<PgbenchResult, number>();

/**
 * Runs pgbench (`clients` clients, default 64, prepared) for `seconds` on database `db` of
 * `databaseUrl`. Clients that pgbench aborted on an error are counted in `aborted`.
 */
export async function pgbench(
  seconds: number,
  databaseUrl: string,
  name: string,
  db: string,
  extra: string[],
  clients = 64,
): Promise<PgbenchResult & { aborted: number }> {
  console.log(`  ${name}: ${clients} clients, ${seconds} s ...`);
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
      String(clients),
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
  const stderr = new TextDecoder().decode(out.stderr);
  const result = {
    ...parsePgbench(new TextDecoder().decode(out.stdout), name, clients),
    aborted: stderr.match(/client \d+ aborted/g)?.length ?? 0,
  };
  if (result.aborted > 0) console.error(stderr.split("\n").slice(0, 5).join("\n"));
  const cpu = (await commandCpuSeconds("postgres")) - cpuBefore;
  const perTransaction = cpu * 1000 / (result.tps * seconds);
  pgCpuCosts.set(result, perTransaction);
  pgCpuNotes.set(result, `PostgreSQL CPU per transaction ${perTransaction.toFixed(2)} ms`);
  return result;
}

/** `pgbench -i -s 10` on database `db` of `databaseUrl` (TPC-B's tables). */
export async function pgbenchInit(databaseUrl: string, db: string): Promise<void> {
  console.log("pgbench: initialising scale 10 ...");
  const url = new URL(databaseUrl);
  const init = await new Deno.Command("pgbench", {
    args: [
      "-h",
      url.hostname,
      "-p",
      url.port || "5432",
      "-U",
      decodeURIComponent(url.username || "postgres"),
      "-i",
      "-q",
      "-s",
      "10",
      db,
    ],
    env: url.password ? { PGPASSWORD: decodeURIComponent(url.password) } : {},
    stdout: "null",
    stderr: "piped",
  }).output();
  if (!init.success) throw new Error(new TextDecoder().decode(init.stderr));
}
