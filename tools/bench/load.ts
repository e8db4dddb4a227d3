/** The load generators: wrk against the service, pgbench against PostgreSQL, with CPU notes. */
import {
  commandCpuSeconds,
  machineCpu,
  parsePgbench,
  type PgbenchResult,
  processCpuSeconds,
} from "./system.ts";
import { parseWrk, type WrkResult } from "./wrk.ts";

/** CPU per request of the server process and of PostgreSQL during each wrk case. */
export const cpuNotes = new Map<WrkResult, string>();
/**
 * The same, as milliseconds of CPU per request, with the share of the machine's CPU time that was
 * busy (all processes, all cores) while the case ran.
 */
export const cpuCosts = new Map<
  WrkResult,
  { serverMs: number; postgresMs: number; machineBusy: number }
>();

/** CPU seconds of the processes `pids` together (ones that ended count as 0 from then on). */
async function pidsCpuSeconds(pids: number[]): Promise<number> {
  let sum = 0;
  for (const pid of pids) sum += await processCpuSeconds(pid).catch(() => 0);
  return sum;
}

/**
 * CPU of the server processes `pids` and of PostgreSQL per request while `work` runs (it answers
 * its count), and how busy the machine was.
 */
async function cpuPerRequest<T>(
  pids: number[],
  work: () => Promise<T>,
  count: (result: T) => number,
): Promise<{ result: T; costs: { serverMs: number; postgresMs: number; machineBusy: number } }> {
  const before = [await pidsCpuSeconds(pids), await commandCpuSeconds("postgres")];
  const machine = await machineCpu();
  const result = await work();
  const after = await machineCpu();
  const served = count(result);
  const server = (await pidsCpuSeconds(pids)) - before[0];
  const pg = (await commandCpuSeconds("postgres")) - before[1];
  return {
    result,
    costs: {
      serverMs: server * 1000 / served,
      postgresMs: pg * 1000 / served,
      machineBusy: (after.busy - machine.busy) / Math.max(1, after.total - machine.total),
    },
  };
}

/**
 * Runs wrk for `seconds`; with `serverPid` (one process, or every process of the service), notes
 * the CPU per request of the server and of PostgreSQL, and how busy the machine was.
 */
export async function wrk(
  seconds: number,
  name: string,
  url: string,
  connections: number,
  script?: string,
  serverPid?: number | number[],
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
    typeof serverPid === "number" ? [serverPid] : serverPid,
    run,
    (r) => r.requestsPerSecond * seconds,
  );
  cpuCosts.set(result, costs);
  cpuNotes.set(
    result,
    `CPU per request: server ${costs.serverMs.toFixed(2)} ms, PostgreSQL ${
      costs.postgresMs.toFixed(2)
    } ms; machine ${(costs.machineBusy * 100).toFixed(0)} % busy`,
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
      // pgbench's own vacuum of its tables (autovacuum may be off), but for a custom script.
      ...(extra.includes("-f") ? ["-n"] : []),
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
