/**
 * `deno task bench-profile [--case launch|get|token|drain] [--seconds N] [--root DIR]
 * [--keep FILE] [--observability]`: where the server's CPU goes per request. Starts the service (of this
 * repository, or of the checkout DIR, to compare with an older version) with `--cpu-prof` on a
 * fresh bench database with the bench's data and realistic app config, drives 64 connections at
 * it with wrk (distinct single-use launches, `GET /api/v1/sessions/:id` of random sessions, or
 * token requests) or queues N × 2,000 callback events for its delivery worker to drain (a
 * "request" is then one delivered event), and prints the top functions and areas of the code by
 * self time per request, counted only during the load run. Writes
 * tools/bench/results/<date>-profile-<case>.md (and, with --keep, the raw profile to FILE, which
 * Chrome DevTools opens). With --observability the service runs as the bench's "observability
 * on" cases run it (OpenTelemetry exporting to a local receiver, /metrics served).
 */
import postgres from "postgres";
import { costs, costTable, type CpuProfile, profileClockNow } from "./cpu_profile.ts";
import {
  createBenchApp,
  serviceEnv,
  startReceiver,
  startServer,
  writeTokenScript,
} from "./bench_service.ts";
import { loadData, signLaunches, writeLaunchScript, writeSessionScript } from "./launch_data.ts";
import { cpuCosts, wrk } from "./load.ts";
import { drain } from "./drain.ts";
import { startObserved } from "./observability.ts";
import { freePort, stop } from "./processes.ts";

const arg = (name: string) => {
  const i = Deno.args.indexOf(name);
  return i >= 0 ? Deno.args[i + 1] : undefined;
};
const seconds = Number(arg("--seconds") ?? 10);
const which = arg("--case") ?? "launch";
// --observability: the service as the bench's "observability on" cases run it.
const observed = Deno.args.includes("--observability");
if (!["launch", "get", "token", "drain"].includes(which)) {
  throw new Error("--case is launch, get, token or drain");
}
const root = new URL("../../", import.meta.url).pathname;
const serverRoot = arg("--root") ? `${Deno.realPathSync(arg("--root")!)}/` : root;
const databaseUrl = Deno.env.get("DATABASE_URL") ?? "postgres://postgres@127.0.0.1:5432/test";

const admin = postgres(databaseUrl, { max: 1, onnotice: () => {} });
const stamp = Date.now();
const dbName = `pl_profile_${stamp}`;
const benchUrl = new URL(databaseUrl);
benchUrl.pathname = `/${dbName}`;
const tmp = await Deno.makeTempDir({ prefix: "pl-profile-" });
const children: Deno.ChildProcess[] = [];
let stopObserved: (() => Promise<void>) | undefined;
try {
  console.log(`Profile of ${which}: ${seconds} s, server from ${serverRoot}`);
  await admin.unsafe(`create database ${dbName}`);
  const receiver = await startReceiver(root);
  children.push(receiver.child);

  let server: Deno.ChildProcess, base: string;
  if (observed) {
    const service = await startObserved(serverRoot, serviceEnv(benchUrl.href, tmp), `${tmp}/prof`);
    [server, base] = [service.server, service.base];
    stopObserved = service.stop;
  } else {
    const port = freePort();
    server = await startServer(serverRoot, serviceEnv(benchUrl.href, tmp), port, `${tmp}/prof`);
    base = `http://127.0.0.1:${port}`;
  }
  children.push(server);
  const app = await createBenchApp(base, receiver.url);
  const bench = postgres(benchUrl.href, { max: 1, onnotice: () => {} });
  const [{ appId }] = await bench`select id as "appId" from apps where app_name = 'bench'`;
  console.log("  loading data and signing launches ...");
  const minSession = await loadData(bench, appId);
  const start = which === "drain"
    ? drainRun(bench, receiver.url, appId, server.pid)
    : await loadRun(bench, base, app, minSession, server.pid);
  const from = await profileClockNow();
  const run = await start();
  const to = await profileClockNow();
  await bench.end();
  await (stopObserved ?? (() => stop(server)))();

  const [file] = [...Deno.readDirSync(`${tmp}/prof`)].filter((e) => e.name.endsWith(".cpuprofile"));
  if (!file) throw new Error("the server wrote no CPU profile");
  const profile: CpuProfile = JSON.parse(await Deno.readTextFile(`${tmp}/prof/${file.name}`));
  if (arg("--keep")) await Deno.copyFile(`${tmp}/prof/${file.name}`, arg("--keep")!);
  const c = costs(profile, from, to);
  const cpu = run.cpu;
  const perRequest = cpu.serverMs * 1000;
  const text = [
    `Server: ${serverRoot}${
      observed ? " (observability on)" : ""
    }; ${which}, ${run.summary}. CPU per request: server ` +
    `${cpu.serverMs.toFixed(3)} ms` +
    `${which === "launch" ? " (including the delivery of its callbacks)" : ""}, PostgreSQL ` +
    `${cpu.postgresMs.toFixed(3)} ms.`,
    "",
    costTable("area", c.areas, c.busyMicros, perRequest, 12),
    "",
    costTable("function (self time)", c.functions, c.busyMicros, perRequest, 20),
  ].join("\n");
  console.log(`\n${text}`);
  const date = new Date().toISOString().slice(0, 10);
  const out = `${root}tools/bench/results/${date}-profile-${which}.md`;
  await Deno.writeTextFile(out, `# Profile of ${which} ${date}\n\n${text}\n`);
  console.log(`\nwritten to ${out.slice(root.length)}`);
} finally {
  for (const child of children) await stop(child);
  await admin.unsafe(`drop database if exists ${dbName} with (force)`);
  await admin.end();
  await Deno.remove(tmp, { recursive: true });
}

/** One profiled run: CPU per request, and its description for the report. */
interface Run {
  cpu: { serverMs: number; postgresMs: number };
  summary: string;
}

/**
 * Prepares 64 wrk connections for `seconds` (launches signed, or reads of random sessions, or
 * token requests) and answers the run itself.
 */
async function loadRun(
  bench: postgres.Sql,
  base: string,
  app: { token: string; apiKey: string },
  minSession: number,
  pid: number,
): Promise<() => Promise<Run>> {
  const [script, url] = which === "launch"
    ? [
      await writeLaunchScript(
        tmp,
        "profile",
        await signLaunches(app.apiKey, seconds * 3_000, minSession, stamp),
      ),
      `${base}/portal/api/auth/app/bench`,
    ]
    : which === "get"
    ? [
      await writeSessionScript(tmp, app.token, minSession),
      `${base}/api/v1/sessions/${minSession}`,
    ]
    : [await writeTokenScript(tmp), `${base}/api/v1/oauth2/token`];
  return async () => {
    const result = await wrk(seconds, which, url, 64, script, pid);
    // Launches counted by the database; reads estimated from wrk's rate (all 2xx, or it says).
    const [{ launched }] = await bench`select count(*)::int as launched from launches
      where outcome = 'ok'`;
    const ok = which === "launch" ? launched : Math.round(result.requestsPerSecond * seconds);
    return {
      cpu: cpuCosts.get(result)!,
      summary: `${seconds} s, 64 connections; ${ok} requests (` +
        `${result.requestsPerSecond.toFixed(0)}/s, p99 ${result.p99Ms.toFixed(1)} ms, ` +
        `non-2xx ${result.non2xx})`,
    };
  };
}

/** The run: `seconds` × 2,000 events queued at once and drained by the server's worker. */
function drainRun(
  bench: postgres.Sql,
  receiverUrl: string,
  appId: number,
  pid: number,
): () => Promise<Run> {
  return async () => {
    const d = await drain(bench, receiverUrl, appId, seconds * 2_000, 600_000, pid);
    return {
      cpu: d.cpu!,
      summary: `${d.count} queued events drained in ${d.seconds.toFixed(1)} s (` +
        `${d.eventsPerSecond.toFixed(0)}/s; received ${d.received}, distinct ${d.distinct}, ` +
        `undelivered ${d.undelivered})`,
    };
  };
}
