/**
 * `deno task bench [--quick]`: load benchmarks of the service on real PostgreSQL, all in one run:
 * baselines (a Hono hello-world on the same Deno; pgbench TPC-B and select-only on the same
 * server), launches with the realistic app config (replay protection `required`, callbacks to a
 * local receiver), token issuance and the REST API against realistic data (10,000 agents, 50,000
 * customers, 100,000 sessions), the drain of a queued callback backlog, 50 launches clicked in
 * Chromium (click to session heading), then the same launch and REST runs with the server on all
 * cores (`deno task serve`: one process per core), with observability on (OpenTelemetry to a local
 * receiver, /metrics), and as three processes behind PgBouncer; last, the launch's database work
 * alone (launch_apply by pgbench: the database limit), and screen sharing (tools/bench/remote.ts:
 * click to first frame, signaling fan-out). Prints one table and the issue-37 and issue-36 verdict
 * (tools/bench/verdict.ts) and writes tools/bench/results/<date>.md (<date>-quick.md with --quick).
 */
import postgres from "postgres";
import { loadConfig } from "../../server/config.ts";
import {
  DATA,
  loadData,
  signLaunches,
  writeLaunchScript,
  writeSessionScript,
} from "./launch_data.ts";
import { drain } from "./drain.ts";
import { launchFloor, type RateMatch } from "./floor.ts";
import { allCoresCases } from "./all_cores.ts";
import { browserCases } from "./browser.ts";
import type { WrkResult } from "./wrk.ts";
import { writeResults } from "./results_file.ts";
import { cpuCosts, pgbench as runPgbench, pgbenchInit, wrk as runWrk } from "./load.ts";
import { countRoundTrips } from "./round_trips.ts";
import { checkInputsSufficed, prepareDatabaseLimit } from "./database_limit.ts";
import { observabilityCases } from "./observability.ts";
import { startScaledOut } from "./scale_out.ts";
import { report, residentText } from "./report.ts";
import { remoteBench } from "./remote.ts";
import {
  freePort,
  peakRss,
  peakRssTree,
  requireTools,
  residentMemory,
  spawn as spawnIn,
  stop,
  treePids,
  waitFor,
} from "./processes.ts";
import {
  benchCallbackUrl,
  createBenchApp,
  maintain,
  serviceEnv,
  setBenchCallbackUrl,
  settle,
  startReceiver,
  startServer,
  writeBearerScript,
  writeTokenScript,
} from "./bench_service.ts";

const quick = Deno.args.includes("--quick");
// --cpu-prof <dir>: the single-process server writes a V8 CPU profile there when it stops.
const profIndex = Deno.args.indexOf("--cpu-prof");
const cpuProfDir = profIndex >= 0 ? Deno.args[profIndex + 1] : undefined;
// DATABASE_POOL_SIZE for the server under test (default: the service's own default).
const poolSize = Deno.env.get("DATABASE_POOL_SIZE");
const seconds = quick ? 3 : 15;
const root = new URL("../../", import.meta.url).pathname;
const databaseUrl = Deno.env.get("DATABASE_URL") ?? "postgres://postgres@127.0.0.1:5432/test";
// Distinct signed launches per launch run: more than the fastest run can use (each is single-use).
const PER_RUN = seconds * 3_000;
const DRAIN = quick ? 10_000 : 100_000;
const BROWSER_LAUNCHES = 50;
const wrk = (...a: [string, string, number, string?, (number | number[])?]) =>
  runWrk(seconds, ...a);
const cores = navigator.hardwareConcurrency;
const pgbench = (name: string, db: string, extra: string[], clients?: number) =>
  runPgbench(seconds, databaseUrl, name, db, extra, clients);
const spawn = (args: string[], env: Record<string, string>) => spawnIn(args, env, root);

await requireTools([
  ["wrk", "sudo apt-get install -y wrk (Debian/Ubuntu), brew install wrk (macOS)"],
  ["pgbench", "sudo apt-get install -y postgresql-client (Debian/Ubuntu)"],
]);

const admin = postgres(databaseUrl, { max: 1, onnotice: () => {} });
const stamp = Date.now();
const dbName = `pl_bench_${stamp}`;
const pgbenchDb = `pl_pgbench_${stamp}`;
const benchUrl = new URL(databaseUrl);
benchUrl.pathname = `/${dbName}`;
const tmp = await Deno.makeTempDir({ prefix: "pl-bench-" });
const children: Deno.ChildProcess[] = [];
const cleanups: (() => Promise<void>)[] = [];
try {
  console.log(`Benchmark (${quick ? "quick" : "full"}): ${seconds} s per case`);
  await admin.unsafe(`create database ${dbName}`);
  await admin.unsafe(`create database ${pgbenchDb}`);

  // Baseline B: pgbench on the same PostgreSQL server.
  await pgbenchInit(databaseUrl, pgbenchDb);
  await settle(admin);
  const tpcb = await pgbench("pgbench TPC-B", pgbenchDb, []);
  const selectOnly = await pgbench("pgbench select-only", pgbenchDb, ["-S"]);

  // Baseline A: hello-world on the same Deno.
  const helloPort = freePort();
  const hello = spawn(["run", "-A", "tools/bench/hello.ts"], { PORT: String(helloPort) });
  children.push(hello);
  await waitFor(`http://127.0.0.1:${helloPort}/`);
  const helloResult = await wrk("hello-world", `http://127.0.0.1:${helloPort}/`, 64);
  const helloRss = await residentMemory(hello);
  await stop(hello);

  // The CRM's callback receiver (counts deliveries by webhook-id).
  const receiver = await startReceiver(root);
  children.push(receiver.child);
  const receiverUrl = receiver.url;

  // The service, single process, on the bench database (migrations run at start).
  const env = serviceEnv(benchUrl.href, tmp, poolSize);
  const port = freePort();
  const server = await startServer(root, env, port, cpuProfDir);
  children.push(server);
  const base = `http://127.0.0.1:${port}`;
  // The realistic config: every launch single-use (issuedAt + nonce stored), and callbacks on.
  const app = await createBenchApp(base, receiverUrl);
  const token = app.token;

  console.log(
    `data: ${DATA.agents} agents, ${DATA.customers} customers, ${DATA.sessions} sessions (with devices and custom fields) ...`,
  );
  const bench = postgres(benchUrl.href, { max: 1, onnotice: () => {} });
  const [{ appId }] = await bench`select id as "appId" from apps where app_name = 'bench'`;
  const minSession = await loadData(bench, appId);

  const countedLaunches = 200;
  const runs = [
    ...["counted", "warmUp", "launch16", "launch64", "launchAll", "launchWhole"],
    ...["warmObs", "launchObs0", "launchObs1", "warm3", "launch3", "pairAll", "pairObs0"],
    ...["pairObs1", "pair3", "launchOwn"],
  ];
  const toSign = countedLaunches + (runs.length - 1) * PER_RUN;
  console.log(`signing ${toSign} distinct single-use launches ...`);
  const signed = await signLaunches(app.apiKey, toSign, minSession, stamp);
  const slice = (run: string) => {
    const k = runs.indexOf(run);
    return k === 0
      ? signed.slice(0, countedLaunches)
      : signed.slice(countedLaunches + (k - 1) * PER_RUN, countedLaunches + k * PER_RUN);
  };

  // Round trips per launch, counted by the driver: an in-process service on the same database.
  const roundTrips = await countRoundTrips(
    loadConfig({ ...env, DATABASE_URL: benchUrl.href, PUBLIC_URL: base }),
    slice("counted"),
  );

  // One wrk script per launch run, each with its own slice of the signed launches.
  const launchLua: Record<string, string> = {};
  for (const run of runs.slice(1)) launchLua[run] = await writeLaunchScript(tmp, run, slice(run));
  // The database-limit case's inputs: as many as three launch runs use.
  console.log(`database limit: storing ${3 * PER_RUN} distinct launch_apply inputs ...`);
  const limitScript = await prepareDatabaseLimit(
    bench,
    { id: appId, appName: "bench" },
    3 * PER_RUN,
    minSession,
    stamp,
    tmp,
  );
  const tokenLua = await writeTokenScript(tmp);
  const sessionLua = await writeSessionScript(tmp, token, minSession);
  const bearerLua = await writeBearerScript(tmp, token);

  const launchPath = "/portal/api/auth/app/bench";
  const sessionPath = "/api/v1/sessions/1";
  const launchUrl = `${base}${launchPath}`;
  // A service that has been running: its launch log, logins, nonces and outbox are not empty
  // when the measured runs start (PostgreSQL plans for the tables as they are then).
  await runWrk(quick ? 2 : 5, "warm-up launches", launchUrl, 16, launchLua.warmUp);
  const pid = server.pid;
  // Peak memory after each case (which one sets it; after GET one: the "off" of observability),
  // and what is resident at its end: mapped from files (code) and anonymous (heaps).
  const peaks = new Map<string, number>();
  const parts = new Map<string, { file: number; anon: number }>();
  const measured = async <T>(label: string, run: () => Promise<T>): Promise<T> => {
    await maintain(bench);
    const result = await run();
    const memory = await residentMemory(server);
    peaks.set(label, memory.peak);
    parts.set(label, memory);
    return result;
  };
  const single: WrkResult[] = [];
  for (
    const [label, name, url, conns, script] of [
      ["launch 16", "launch", launchUrl, 16, launchLua.launch16],
      ["launch 64", "launch", launchUrl, 64, launchLua.launch64],
      ["token", "token issuance", `${base}/api/v1/oauth2/token`, 64, tokenLua],
      ["GET one", "GET /api/v1/sessions/:id", `${base}${sessionPath}`, 64, sessionLua],
      [
        "GET page",
        "GET /api/v1/sessions?status=open&limit=50",
        `${base}/api/v1/sessions?status=open&limit=50`,
        64,
        bearerLua,
      ],
    ] as const
  ) single.push(await measured(label, () => wrk(name, url, conns, script, pid)));
  // Baseline C: the launch's shape (the same bodies, one query, a small answer) with no service
  // work, on the same Deno and driver: what a launch's server CPU cannot go below.
  const floorRun = (name: string, match?: RateMatch) =>
    launchFloor(benchUrl.href, launchLua.launch64, (u, s, p) => wrk(name, u, 64, s, p), match);
  const floor = await floorRun("launch floor (no service work)");
  // The launch's own server CPU: launches of an app with no callback URL emit no event, so the
  // server delivers none (at launch rates each delivery is claimed in small batches, and costs
  // more than the drain's per event). The URL is back before the drain and the variants.
  await setBenchCallbackUrl(base, token, null);
  const launchOwn = await measured(
    "launch, no callbacks",
    () => wrk("launch, no callbacks", launchUrl, 64, launchLua.launchOwn, pid),
  );
  await setBenchCallbackUrl(base, token, benchCallbackUrl(receiverUrl));
  // Baseline C again, held to the launch's rate by PostgreSQL's work (tools/bench/floor.ts).
  const floorAtRate = await floorRun("launch floor at the launch's rate", {
    postgresMs: cpuCosts.get(launchOwn)?.postgresMs ?? 1,
    rate: launchOwn.requestsPerSecond,
    probe: async (u, s) => (await runWrk(3, "floor probe", u, 64, s)).requestsPerSecond,
  });
  const drained = await measured(
    "drain",
    () =>
      drain(
        bench,
        receiverUrl,
        appId,
        DRAIN,
        quick ? 120_000 : 300_000,
        server.pid,
        receiver.child.pid,
      ),
  );
  console.log(`  browser: ${BROWSER_LAUNCHES} launches from <portal-launcher> in Chromium ...`);
  const clicks = await browserCases(base, token, BROWSER_LAUNCHES);
  const rssSingle = await peakRss(server);
  peaks.set("browser", rssSingle);

  // Each variant below (all cores, observability on, PgBouncer) is compared with the single
  // process measured again right before it (a shared host drifts); it stays up, idle, meanwhile.
  const paired = async (what: string, script: string): Promise<WrkResult[]> => {
    const runs: WrkResult[] = [];
    for (
      const [name, url, lua] of [
        [`launch, one process, paired with ${what}`, launchUrl, script],
        [
          `GET /api/v1/sessions/:id, one process, paired with ${what}`,
          `${base}${sessionPath}`,
          sessionLua,
        ],
      ]
    ) {
      await maintain(bench);
      runs.push(await wrk(name, url, 64, lua, pid));
    }
    return runs;
  };
  const pairedAll = await paired("all cores", launchLua.pairAll);

  // The same launch and REST runs on all cores (tools/bench/all_cores.ts).
  const { multi, rss: rssParallel } = await allCoresCases({
    root,
    env,
    poolSize: Number(poolSize ?? 10),
    cores,
    launchPath,
    sessionPath,
    scripts: { launch: launchLua.launchAll, whole: launchLua.launchWhole, session: sessionLua },
    before: () => maintain(bench),
    wrk,
  });

  // Warmed up as the single process was, so each variant is compared running, not starting.
  const warmUp = (base: string, script: string) =>
    runWrk(quick ? 2 : 5, "warm-up launches", `${base}${launchPath}`, 16, script);
  // Observability on against off, alternated in halves (tools/bench/observability.ts).
  const { off: pairedObs, on: observed, rss: rssObserved, check: observedCheck } =
    await observabilityCases({
      root,
      env,
      seconds: Math.ceil(seconds / 2),
      single: { base, pid },
      warmUp,
      launch: {
        path: launchPath,
        warm: launchLua.warmObs,
        off: [launchLua.pairObs0, launchLua.pairObs1],
        on: [launchLua.launchObs0, launchLua.launchObs1],
      },
      get: { path: sessionPath, script: sessionLua },
      before: () => maintain(bench),
    });

  // Scale-out: three processes behind PgBouncer (transaction mode).
  const pairedScaled = await paired("PgBouncer", launchLua.pair3);
  await stop(server);
  const scaledOut = await startScaledOut(root, env, benchUrl.href);
  cleanups.push(scaledOut.stop);
  await warmUp(scaledOut.base, launchLua.warm3);
  const scaled: WrkResult[] = [];
  for (
    const [name, path, script] of [
      ["launch, 3 processes via PgBouncer", launchPath, launchLua.launch3],
      ["GET /api/v1/sessions/:id, 3 processes via PgBouncer", sessionPath, sessionLua],
    ]
  ) {
    await maintain(bench);
    scaled.push(
      await wrk(name, `${scaledOut.base}${path}`, 64, script, await treePids(scaledOut.processes)),
    );
  }
  const rssScaled = await peakRssTree(scaledOut.processes);
  await scaledOut.stop();

  // The database limit: launch_apply alone, no service running (no delivery worker either).
  const databaseLimit = [];
  // Also at the service's own pool size: its launches reach PostgreSQL on that many connections.
  for (const clients of [Number(poolSize ?? 10), 16, 64]) {
    await maintain(bench);
    databaseLimit.push(
      await pgbench("launch_apply (database limit)", dbName, ["-f", limitScript], clients),
    );
  }
  await checkInputsSufficed(bench, 3 * PER_RUN);
  // Baseline B again: a shared host's speed drifts, and every ratio above compares a case with
  // baselines measured minutes before it (the verdict's first line says whether it held).
  await settle(admin);
  const tpcbEnd = await pgbench("pgbench TPC-B, again at the end", pgbenchDb, []);
  const [{ launches }] =
    await bench`select count(*) as launches from launches where outcome = 'ok'`;
  const [{ failed }] = await bench`select count(*) as failed from launches where outcome <> 'ok'`;
  await bench.end();

  // Screen sharing (issue 36): on a database of its own (tools/bench/remote.ts).
  const remote = await remoteBench(root, databaseUrl, quick);

  const { rows, notes, verdict } = report({
    remote,
    hello: helloResult,
    floor,
    floorAtRate,
    launchOwn,
    tpcb,
    tpcbEnd,
    selectOnly,
    single,
    drained,
    clicks,
    multi,
    paired: { multi: pairedAll, observed: pairedObs, scaled: pairedScaled },
    observed,
    rssObserved,
    observedCheck,
    scaled,
    databaseLimit,
    rssSingle,
    rssLaunchGet: peaks.get("GET one"),
    rssParallel,
    rssScaled,
    roundTrips,
    countedLaunches,
  });
  const peakText = [...peaks].map(([label, mb]) => `${label} ${mb.toFixed(0)}`).join(", ");
  notes.unshift(
    `Launches recorded: ${launches} ok, ${failed} refused (refusals would show as non-2xx).`,
    `Peak RSS (VmHWM) of the single process after each case, MB: ${peakText}.`,
    residentText(parts.get("GET one"), helloRss),
  );
  const [{ autovacuum }] = await admin`select current_setting('autovacuum') as autovacuum`;
  notes.push(
    `Before each case the bench runs VACUUM ANALYZE on its database, as pgbench does on its ` +
      `tables before each run (autovacuum on this server: ${autovacuum}), then a CHECKPOINT.`,
  );
  const [{ version }] = await admin`select current_setting('server_version') as version`;
  const facts = { quick, seconds, postgresVersion: version, data: DATA, launchesPerRun: PER_RUN };
  await writeResults(root, facts, rows, notes, verdict);
} finally {
  for (const cleanup of cleanups) await cleanup().catch(() => {});
  for (const child of children) await stop(child);
  await admin.unsafe(`drop database if exists ${dbName} with (force)`);
  await admin.unsafe(`drop database if exists ${pgbenchDb} with (force)`);
  await admin.end();
  await Deno.remove(tmp, { recursive: true });
}
