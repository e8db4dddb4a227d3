/**
 * `deno task bench-profile [--case launch|get|page|token|drain] [--seconds N] [--connections N]
 * [--root DIR] [--keep FILE] [--no-callbacks] [--observability] [--plain] [--allocations]
 * [--v8-flags FLAGS] [--env NAME=VALUE ...]`: where the server's CPU goes per request. Starts the
 * service (of this repository, or of the checkout DIR, to compare with an older version) with
 * `--cpu-prof` on a fresh bench database with the bench's data and realistic app config, drives 64
 * connections (`--connections`, from 2: wrk runs two threads) at it with wrk (distinct single-use
 * launches, `GET /api/v1/sessions/:id` of random sessions, the list page
 * `GET /api/v1/sessions?status=open&limit=50`, or token requests) or queues N × 2,000 callback
 * events for its delivery worker to drain (a "request" is then one delivered event), and prints the
 * top functions and areas of the code by self time per request, counted only during the load run.
 * Writes tools/bench/results/<date>-profile-<case>.md (and, with --keep, the raw profile to FILE,
 * which Chrome DevTools opens). With --observability the service runs as the bench's "observability
 * on" cases run it (OpenTelemetry exporting to a local receiver, /metrics served). `--no-callbacks`
 * removes the bench app's callback URL first, so launches emit no events and the figures are the
 * launch's own (the verdict's `launch, no callbacks`). `--plain` runs the same load without the
 * profiler (whose own cost inflates the CPU figures about twofold) and prints only the CPU per
 * request, throughput and peak RSS: the way to compare two variants, such as V8 heap flags
 * (`--v8-flags`, replacing the start task's) or service settings (`--env`). `--allocations` runs
 * the load without the CPU profiler too, and prints where the server allocates instead: KiB per
 * request by area and by function, short-lived garbage included (tools/bench/allocations.ts),
 * written to tools/bench/results/<date>-allocations-<case>.md.
 */
import postgres from "postgres";
import { costs, costTable, type CpuProfile, profileClockNow } from "./cpu_profile.ts";
import {
  createBenchApp,
  serviceEnv,
  setBenchCallbackUrl,
  startReceiver,
  startServer,
  writeBearerScript,
  writeTokenScript,
} from "./bench_service.ts";
import { loadData, signLaunches, writeLaunchScript, writeSessionScript } from "./launch_data.ts";
import { cpuCosts, wrk } from "./load.ts";
import { drain } from "./drain.ts";
import { startObserved } from "./observability.ts";
import { freePort, peakRss, stop } from "./processes.ts";
import { allocationTable, sampleAllocations } from "./allocations.ts";

const arg = (name: string) => {
  const i = Deno.args.indexOf(name);
  return i >= 0 ? Deno.args[i + 1] : undefined;
};
const seconds = Number(arg("--seconds") ?? 10);
const connections = Number(arg("--connections") ?? 64);
if (!Number.isInteger(connections) || connections < 2) {
  // wrk runs two threads (tools/bench/load.ts), and each needs a connection of its own.
  throw new Error("--connections is a whole number from 2 (wrk's connections, default 64)");
}
const which = arg("--case") ?? "launch";
// --observability: the service as the bench's "observability on" cases run it.
const observed = Deno.args.includes("--observability");
// --plain: no profiler; --v8-flags: instead of the start task's; --env NAME=VALUE: added.
const allocations = Deno.args.includes("--allocations");
const plain = Deno.args.includes("--plain") || allocations;
const v8Flags = arg("--v8-flags");
const noCallbacks = Deno.args.includes("--no-callbacks");
const extraEnv: Record<string, string> = Object.fromEntries(
  Deno.args.flatMap((a, i) => Deno.args[i - 1] === "--env" ? [a.split(/=(.*)/s, 2)] : []),
);
if (!["launch", "get", "page", "token", "drain"].includes(which)) {
  throw new Error("--case is launch, get, page, token or drain");
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
  const inspectPort = allocations ? freePort() : undefined;
  if (observed) {
    const service = await startObserved(
      serverRoot,
      { ...serviceEnv(benchUrl.href, tmp), ...extraEnv },
      plain ? undefined : `${tmp}/prof`,
      v8Flags,
      inspectPort,
    );
    [server, base] = [service.server, service.base];
    stopObserved = service.stop;
  } else {
    const port = freePort();
    server = await startServer(
      serverRoot,
      { ...serviceEnv(benchUrl.href, tmp), ...extraEnv },
      port,
      plain ? undefined : `${tmp}/prof`,
      v8Flags,
      inspectPort,
    );
    base = `http://127.0.0.1:${port}`;
  }
  children.push(server);
  const app = await createBenchApp(base, receiver.url);
  if (noCallbacks) await setBenchCallbackUrl(base, app.token, null);
  const bench = postgres(benchUrl.href, { max: 1, onnotice: () => {} });
  const [{ appId }] = await bench`select id as "appId" from apps where app_name = 'bench'`;
  console.log("  loading data and signing launches ...");
  const minSession = await loadData(bench, appId);
  const start = which === "drain"
    ? drainRun(bench, receiver, appId, server.pid)
    : await loadRun(bench, base, app, minSession, server.pid);
  const sampling = inspectPort ? await sampleAllocations(inspectPort) : undefined;
  const from = await profileClockNow();
  const run = await start();
  const to = await profileClockNow();
  const allocated = await sampling?.();
  const rss = await peakRss(server);
  await bench.end();
  await (stopObserved ?? (() => stop(server)))();
  const heading =
    `Server: ${serverRoot}${observed ? " (observability on)" : ""}${
      v8Flags !== undefined ? `, V8 flags "${v8Flags}"` : ""
    }${Object.keys(extraEnv).length ? `, ${new URLSearchParams(extraEnv)}` : ""}; ${which}, ` +
    `${run.summary}. CPU per request: server ${run.cpu.serverMs.toFixed(3)} ms` +
    `${
      which !== "launch"
        ? ""
        : noCallbacks
        ? " (no callbacks)"
        : " (including the delivery of its callbacks)"
    }, PostgreSQL ` +
    `${run.cpu.postgresMs.toFixed(3)} ms. Peak RSS ${rss.toFixed(0)} MB.`;
  const date = new Date().toISOString().slice(0, 10);
  if (allocated) {
    const text = [
      `${heading} Allocations sampled (no CPU profiler): ` +
      `${(allocated.bytes / run.requests / 1024).toFixed(1)} KiB per request.`,
      "",
      allocationTable("area", allocated.areas, allocated.bytes, run.requests, 12),
      "",
      allocationTable("function (self)", allocated.functions, allocated.bytes, run.requests, 25),
    ].join("\n");
    console.log(`\n${text}`);
    const out = `${root}tools/bench/results/${date}-allocations-${which}.md`;
    await Deno.writeTextFile(out, `# Allocations of ${which} ${date}\n\n${text}\n`);
    console.log(`\nwritten to ${out.slice(root.length)}`);
  } else if (plain) {
    // Nothing was profiled: the figures alone.
    console.log(`\n${heading} No profiler.`);
  } else {
    const dir = `${tmp}/prof`;
    const [file] = [...Deno.readDirSync(dir)].filter((e) => e.name.endsWith(".cpuprofile"));
    if (!file) throw new Error("the server wrote no CPU profile");
    const profile: CpuProfile = JSON.parse(await Deno.readTextFile(`${dir}/${file.name}`));
    if (arg("--keep")) await Deno.copyFile(`${dir}/${file.name}`, arg("--keep")!);
    const c = costs(profile, from, to);
    const perRequest = run.cpu.serverMs * 1000;
    const text = [
      heading,
      "",
      costTable("area", c.areas, c.busyMicros, perRequest, 12),
      "",
      costTable("function (self time)", c.functions, c.busyMicros, perRequest, 20),
    ].join("\n");
    console.log(`\n${text}`);
    const out = `${root}tools/bench/results/${date}-profile-${which}.md`;
    await Deno.writeTextFile(out, `# Profile of ${which} ${date}\n\n${text}\n`);
    console.log(`\nwritten to ${out.slice(root.length)}`);
  }
} finally {
  for (const child of children) await stop(child);
  await admin.unsafe(`drop database if exists ${dbName} with (force)`);
  await admin.end();
  await Deno.remove(tmp, { recursive: true });
}

/** One profiled run: CPU per request, requests (or events) served, and its description. */
interface Run {
  cpu: { serverMs: number; postgresMs: number };
  requests: number;
  summary: string;
}

/**
 * Prepares the wrk run of `connections` for `seconds` (launches signed, or reads of random
 * sessions, or token requests) and answers the run itself.
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
    : which === "page"
    ? [await writeBearerScript(tmp, app.token), `${base}/api/v1/sessions?status=open&limit=50`]
    : [await writeTokenScript(tmp), `${base}/api/v1/oauth2/token`];
  return async () => {
    const result = await wrk(seconds, which, url, connections, script, pid);
    // Launches counted by the database; reads estimated from wrk's rate (all 2xx, or it says).
    const [{ launched }] = await bench`select count(*)::int as launched from launches
      where outcome = 'ok'`;
    const ok = which === "launch" ? launched : Math.round(result.requestsPerSecond * seconds);
    return {
      cpu: cpuCosts.get(result)!,
      requests: ok,
      summary: `${seconds} s, ${connections} connections; ${ok} requests (` +
        `${result.requestsPerSecond.toFixed(0)}/s, p99 ${result.p99Ms.toFixed(1)} ms, ` +
        `non-2xx ${result.non2xx})`,
    };
  };
}

/** The run: `seconds` × 2,000 events queued at once and drained by the server's worker. */
function drainRun(
  bench: postgres.Sql,
  receiver: { url: string; child: Deno.ChildProcess },
  appId: number,
  pid: number,
): () => Promise<Run> {
  return async () => {
    const d = await drain(
      bench,
      receiver.url,
      appId,
      seconds * 2_000,
      600_000,
      pid,
      receiver.child.pid,
    );
    const cpu = d.cpu!;
    return {
      cpu,
      requests: d.count,
      summary: `${d.count} queued events drained in ${d.seconds.toFixed(1)} s (` +
        `${d.eventsPerSecond.toFixed(0)}/s; received ${d.received}, distinct ${d.distinct}, ` +
        `undelivered ${d.undelivered}; receiver ${cpu.receiverMs!.toFixed(3)} ms CPU each, ` +
        `server's main thread ${(cpu.mainThreadBusy * 100).toFixed(0)} % busy)`,
    };
  };
}
