/**
 * `deno task bench [--quick]`: load benchmarks of the service on real PostgreSQL, all in one run:
 * baselines (a Hono hello-world on the same Deno; pgbench TPC-B and select-only on the same
 * server), launches, token issuance and the REST API against realistic data (10,000 agents,
 * 50,000 customers, 100,000 sessions), then the same launch and REST runs with the server on all
 * cores (`deno serve --parallel`). Prints one table and writes tools/bench/results/<date>.md.
 */
import postgres from "postgres";
import { connect } from "../../db/mod.ts";
import { startService } from "../../server/service.ts";
import { loadConfig } from "../../server/config.ts";
import { signPayload } from "../../server/launch/signed_request.ts";
import { ratioText } from "./system.ts";
import { renderRows, type TableRow, type WrkResult, wrkRow } from "./wrk.ts";
import { cpuNotes, pgbench as runPgbench, pgCpuNotes, wrk as runWrk } from "./load.ts";
import { freePort, have, peakRss, spawn as spawnIn, stop, waitFor } from "./processes.ts";

const quick = Deno.args.includes("--quick");
// --cpu-prof <dir>: the single-process server writes a V8 CPU profile there when it stops.
const profIndex = Deno.args.indexOf("--cpu-prof");
const cpuProfDir = profIndex >= 0 ? Deno.args[profIndex + 1] : undefined;
// DATABASE_POOL_SIZE for the server under test (default: the service's own default).
const poolSize = Deno.env.get("DATABASE_POOL_SIZE");
const seconds = quick ? 3 : 15;
const root = new URL("../../", import.meta.url).pathname;
const databaseUrl = Deno.env.get("DATABASE_URL") ?? "postgres://postgres@127.0.0.1:5432/test";
const AGENTS = 10_000;
const CUSTOMERS = 50_000;
const SESSIONS = 100_000;
const SIGNED = quick ? 4_000 : 30_000;
const SECRET_KEY = "bench-secret-key-0123456789abcdefghijkl";
// The V8 flags `deno task start` runs the service with, read from deno.json.
const START = JSON.parse(await Deno.readTextFile(`${root}deno.json`)).tasks.start.command as string;
const V8_FLAGS = START.split(" ").filter((word) => word.startsWith("--v8-flags="));
const BENCH_APP = { appName: "bench", name: "Bench", authType: "signed_request" };
const CLIENT = { id: "bench", secret: "bench-secret-0123456789abcdefghijklmnopqrstuvwxyz" };

const wrk = (...a: [string, string, number, string?, number?]) => runWrk(seconds, ...a);
const pgbench = (name: string, db: string, extra: string[]) =>
  runPgbench(seconds, databaseUrl, name, db, extra);
const spawn = (args: string[], env: Record<string, string>) => spawnIn(args, env, root);

for (
  const [tool, hint] of [
    ["wrk", "sudo apt-get install -y wrk (Debian/Ubuntu), brew install wrk (macOS)"],
    ["pgbench", "sudo apt-get install -y postgresql-client (Debian/Ubuntu)"],
  ]
) {
  if (!(await have(tool))) {
    console.error(`${tool} not found. Install it: ${hint}`);
    Deno.exit(1);
  }
}

const admin = postgres(databaseUrl, { max: 1, onnotice: () => {} });
const stamp = Date.now();
const dbName = `pl_bench_${stamp}`;
const pgbenchDb = `pl_pgbench_${stamp}`;
const benchUrl = new URL(databaseUrl);
benchUrl.pathname = `/${dbName}`;
const tmp = await Deno.makeTempDir({ prefix: "pl-bench-" });
const children: Deno.ChildProcess[] = [];
const rows: TableRow[] = [];
const notes: string[] = [];
try {
  console.log(`Benchmark (${quick ? "quick" : "full"}): ${seconds} s per case`);
  await admin.unsafe(`create database ${dbName}`);
  await admin.unsafe(`create database ${pgbenchDb}`);

  // Baseline B: pgbench on the same PostgreSQL server.
  console.log("pgbench: initialising scale 10 ...");
  const pgUrl = new URL(databaseUrl);
  const init = await new Deno.Command("pgbench", {
    args: [
      "-h",
      pgUrl.hostname,
      "-p",
      pgUrl.port || "5432",
      "-U",
      decodeURIComponent(pgUrl.username || "postgres"),
      "-i",
      "-q",
      "-s",
      "10",
      pgbenchDb,
    ],
    env: pgUrl.password ? { PGPASSWORD: decodeURIComponent(pgUrl.password) } : {},
    stdout: "null",
    stderr: "piped",
  }).output();
  if (!init.success) throw new Error(new TextDecoder().decode(init.stderr));
  const tpcb = await pgbench("pgbench TPC-B", pgbenchDb, []);
  const selectOnly = await pgbench("pgbench select-only", pgbenchDb, ["-S"]);

  // Baseline A: hello-world on the same Deno.
  const helloPort = freePort();
  const hello = spawn(["run", "-A", "tools/bench/hello.ts"], { PORT: String(helloPort) });
  children.push(hello);
  await waitFor(`http://127.0.0.1:${helloPort}/`);
  const helloResult = await wrk("hello-world", `http://127.0.0.1:${helloPort}/`, 64);
  await stop(hello);

  // The service, single process, on the bench database (migrations run at start).
  const env = {
    DATABASE_URL: benchUrl.href,
    SECRET_KEY,
    BOOTSTRAP_CLIENT_ID: CLIENT.id,
    BOOTSTRAP_CLIENT_SECRET: CLIENT.secret,
    DATA_DIR: tmp,
    LOG_LEVEL: "error",
    ...(poolSize ? { DATABASE_POOL_SIZE: poolSize } : {}),
  };
  const port = freePort();
  const server = spawn([
    "run",
    "-A",
    ...V8_FLAGS,
    ...(cpuProfDir ? ["--cpu-prof", `--cpu-prof-dir=${cpuProfDir}`] : []),
    "server/main.ts",
  ], { ...env, PORT: String(port) });
  children.push(server);
  const base = `http://127.0.0.1:${port}`;
  await waitFor(`${base}/readyz`);

  console.log(
    `data: ${AGENTS} agents, ${CUSTOMERS} customers, ${SESSIONS} sessions (with devices and custom fields) ...`,
  );
  const bench = postgres(benchUrl.href, { max: 1, onnotice: () => {} });
  await bench.begin(async (tx) => {
    await tx`insert into custom_field_definitions (name, label) values ('priority', 'Priority')`;
    await tx`
      insert into users (role, external_id, email, first_name, last_name)
      select 'agent', 'agent' || g, 'agent' || g || '@bench.example.com', 'Agent', 'Number'
      from generate_series(1, ${AGENTS}) g`;
    await tx`
      insert into customers (external_id, email, first_name, last_name, phone1)
      select 'C' || g, 'customer' || g || '@bench.example.org', 'Customer', 'Number',
        '555' || lpad(g::text, 7, '0')
      from generate_series(1, ${CUSTOMERS}) g`;
    await tx`
      insert into sessions (status, external_reference, reference_id, customer_id, assignee_id)
      select case when g % 5 = 0 then 'closed' else 'open' end, 'REF' || g, 'R' || g,
        (select min(id) from customers) + (g::bigint * 7919) % ${CUSTOMERS},
        (select min(id) from users where role = 'agent') + (g::bigint * 104729) % ${AGENTS}
      from generate_series(1, ${SESSIONS}) g`;
    await tx`
      insert into devices (session_id, kind, serial, properties)
      select id, 'computer', 'S' || id, jsonb_build_object('name', 'PC-' || id, 'os', 'Windows')
      from sessions where id % 2 = 0`;
    await tx`
      insert into session_custom_fields (session_id, name, value)
      select id, 'priority', '"high"'::jsonb from sessions where id % 3 = 0`;
  });
  await bench`analyze`;
  const [{ minSession }] = await bench`select min(id)::int as "minSession" from sessions`;

  const tokenBody =
    `grant_type=client_credentials&client_id=${CLIENT.id}&client_secret=${CLIENT.secret}`;
  const token = (await (await fetch(`${base}/api/v1/oauth2/token`, {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
    body: tokenBody,
  })).json()).access_token;
  const app = await (await fetch(`${base}/api/v1/admin/apps`, {
    method: "POST",
    headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
    // wrk replays pre-signed bodies, which "required" refuses by design: "optional" accepts
    // them without issuedAt (`deno task bench-nonce` measures the nonce's cost).
    body: JSON.stringify({ ...BENCH_APP, replayProtection: "optional" }),
  })).json();

  console.log(`signing ${SIGNED} distinct launches (half new sessions, half existing) ...`);
  const rand = (n: number) => Math.floor(Math.random() * n);
  const bodies: string[] = [];
  for (let i = 0; i < SIGNED; i++) {
    const agent = i % 10 === 0 ? `new${stamp}x${i}` : `agent${1 + rand(AGENTS)}`;
    const customer = i % 5 === 0 ? `N${stamp}x${i}` : `C${1 + rand(CUSTOMERS)}`;
    const customerEmail = customer.startsWith("C")
      ? `customer${customer.slice(1)}@bench.example.org`
      : `${customer.toLowerCase()}@bench.example.org`;
    const params: Record<string, unknown> = {
      referenceNumber: `BR${i}`,
      contactId: customer,
      contactFirstName: "Grace",
      contactLastName: "Hopper",
      contactEmail: customerEmail,
      contactPhone: "5559876543",
    };
    if (i % 2 === 1) params.sessionId = minSession + rand(SESSIONS);
    if (i % 3 === 0) params.deviceComputer = { name: "PC", os: "Windows", serial: `B${i}` };
    if (i % 3 === 1) params.customFields = { priority: "low" };
    const payload = {
      algorithm: "HMACSHA256",
      context: {
        user: {
          id: agent,
          email: agent.startsWith("agent")
            ? `${agent}@bench.example.com`
            : `${agent}@bench.example.com`,
          first_name: "Ada",
          last_name: "Lovelace",
        },
        environment: { parameters: params },
      },
    };
    bodies.push(new URLSearchParams({
      signed_request: await signPayload(JSON.stringify(payload), app.apiKey),
    }).toString());
  }

  // Round trips per launch, counted by the driver: an in-process service on the same database.
  const countedLaunches = 200;
  let queries = 0;
  const db = await connect({ databaseUrl: benchUrl.href, max: 4, onQuery: () => queries++ });
  const counted = await startService(
    loadConfig({ ...env, DATABASE_URL: benchUrl.href, PUBLIC_URL: base }),
    { db, demoData: false },
  );
  queries = 0;
  for (let i = 0; i < countedLaunches; i++) {
    const res = await counted.app.request(`${base}/portal/api/auth/app/bench`, {
      method: "POST",
      headers: {
        Accept: "application/json",
        "Content-Type": "application/x-www-form-urlencoded",
      },
      body: bodies[bodies.length - 1 - i],
    });
    if (res.status !== 200) throw new Error(`counted launch: ${res.status} ${await res.text()}`);
  }
  const roundTrips = queries / countedLaunches;
  await db.close();

  const luaBodies = `${tmp}/bodies.lua`;
  await Deno.writeTextFile(
    luaBodies,
    "bodies = {\n" + bodies.map((b) => `"${b}"`).join(",\n") + "\n}\n",
  );
  const launchLua = `${tmp}/launch.lua`;
  await Deno.writeTextFile(
    launchLua,
    `dofile("${luaBodies}")
local threads = 0
function setup(thread) thread:set("tid", threads); threads = threads + 1 end
local i = 0
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/x-www-form-urlencoded"
wrk.headers["Accept"] = "application/json"
request = function()
  i = i + 1
  local n = #bodies
  return wrk.format(nil, nil, nil, bodies[((i * 2 + tid) % n) + 1])
end
`,
  );
  const tokenLua = `${tmp}/token.lua`;
  await Deno.writeTextFile(
    tokenLua,
    `wrk.method = "POST"\nwrk.body = "${tokenBody}"\n` +
      `wrk.headers["Content-Type"] = "application/x-www-form-urlencoded"\n`,
  );
  const sessionLua = `${tmp}/session.lua`;
  await Deno.writeTextFile(
    sessionLua,
    `wrk.headers["Authorization"] = "Bearer ${token}"
math.randomseed(os.time() + math.floor(os.clock() * 1000000))
request = function()
  return wrk.format("GET", "/api/v1/sessions/" .. (${minSession} + math.random(0, ${SESSIONS - 1})))
end
`,
  );
  const bearerLua = `${tmp}/bearer.lua`;
  await Deno.writeTextFile(bearerLua, `wrk.headers["Authorization"] = "Bearer ${token}"\n`);

  const launchUrl = `${base}/portal/api/auth/app/bench`;
  const single: WrkResult[] = [];
  const pid = server.pid;
  single.push(await wrk("launch", launchUrl, 16, launchLua, pid));
  single.push(await wrk("launch", launchUrl, 64, launchLua, pid));
  single.push(await wrk("token issuance", `${base}/api/v1/oauth2/token`, 64, tokenLua, pid));
  single.push(
    await wrk("GET /api/v1/sessions/:id", `${base}/api/v1/sessions/1`, 64, sessionLua, pid),
  );
  single.push(
    await wrk(
      "GET /api/v1/sessions?status=open&limit=50",
      `${base}/api/v1/sessions?status=open&limit=50`,
      64,
      bearerLua,
      pid,
    ),
  );
  const rssSingle = await peakRss(server);
  await stop(server);

  // The same launch and REST runs on all cores.
  const parallelPort = freePort();
  const parallel = spawn(
    [
      "serve",
      "-A",
      ...V8_FLAGS,
      "--parallel",
      "--host",
      "127.0.0.1",
      "--port",
      String(parallelPort),
      "server/serve.ts",
    ],
    env,
  );
  children.push(parallel);
  const pbase = `http://127.0.0.1:${parallelPort}`;
  await waitFor(`${pbase}/readyz`);
  const multi: WrkResult[] = [];
  multi.push(await wrk("launch, all cores", `${pbase}/portal/api/auth/app/bench`, 64, launchLua));
  multi.push(
    await wrk("GET /api/v1/sessions/:id, all cores", `${pbase}/api/v1/sessions/1`, 64, sessionLua),
  );
  const rssParallel = await peakRss(parallel);
  await stop(parallel);
  const [{ launches }] =
    await bench`select count(*) as launches from launches where outcome = 'ok'`;
  const [{ failed }] = await bench`select count(*) as failed from launches where outcome <> 'ok'`;
  await bench.end();

  const tps = tpcb.tps;
  const helloRps = helloResult.requestsPerSecond;
  rows.push(wrkRow(helloResult, "baseline A"));
  rows.push({
    name: tpcb.name,
    connections: 64,
    rate: tps,
    note: `baseline B; avg latency ${tpcb.latencyAvgMs.toFixed(1)} ms`,
  });
  rows.push({
    name: selectOnly.name,
    connections: 64,
    rate: selectOnly.tps,
    note: `avg latency ${selectOnly.latencyAvgMs.toFixed(1)} ms`,
  });
  const [l16, l64, tok, getOne, getPage] = single;
  rows.push(wrkRow(l16, ratioText(l16.requestsPerSecond, tps, "TPC-B")));
  rows.push(wrkRow(
    l64,
    `${ratioText(l64.requestsPerSecond, tps, "TPC-B", 0.8)}; p99 ${
      l64.p99Ms <= 50 ? "✔" : "✘"
    } (target ≤ 50 ms)`,
  ));
  rows.push(wrkRow(tok, ratioText(tok.requestsPerSecond, tps, "TPC-B", 1.0)));
  rows.push(wrkRow(getOne, ratioText(getOne.requestsPerSecond, helloRps, "hello-world", 0.4)));
  rows.push(wrkRow(getPage, ratioText(getPage.requestsPerSecond, helloRps, "hello-world")));
  rows.push(wrkRow(multi[0], ratioText(multi[0].requestsPerSecond, tps, "TPC-B")));
  rows.push(wrkRow(multi[1], ratioText(multi[1].requestsPerSecond, helloRps, "hello-world")));
  rows.push({
    name: "peak RSS, single process",
    note: `${rssSingle.toFixed(0)} MB ${rssSingle <= 200 ? "✔" : "✘"} (target ≤ 200 MB)`,
  });
  rows.push({ name: "peak RSS, all cores", note: `${rssParallel.toFixed(0)} MB` });
  rows.push({
    name: "database round trips per launch",
    note: `${roundTrips.toFixed(2)} (driver count over ${countedLaunches} launches)`,
  });
  notes.push(
    `Launches recorded: ${launches} ok, ${failed} refused (refusals would show as non-2xx).`,
  );

  for (const r of [tpcb, selectOnly]) notes.push(`${r.name}: ${pgCpuNotes.get(r)}.`);
  for (const r of single) {
    const note = cpuNotes.get(r);
    if (note) notes.push(`${r.name} (${r.connections} connections): ${note}.`);
  }
  const table = renderRows(rows);
  const cpu = (await Deno.readTextFile("/proc/cpuinfo").catch(() => ""))
    .match(/model name\s*:\s*(.*)/)?.[1] ?? "unknown CPU";
  const [{ version }] = await admin`select current_setting('server_version') as version`;
  const header =
    `Machine: ${navigator.hardwareConcurrency} cores, ${cpu}; Deno ${Deno.version.deno}; ` +
    `PostgreSQL ${version}; wrk -t2 and pgbench -j2, ${seconds} s per case; server, ` +
    `PostgreSQL and load generator on the same machine. Data: ${AGENTS} agents, ${CUSTOMERS} ` +
    `customers, ${SESSIONS} sessions; ${SIGNED} distinct signed launches (half new sessions, ` +
    `half existing; 10% new agents, 20% new customers).`;
  console.log(`\n${header}\n\n${table}\n\n${notes.join("\n")}`);
  const date = new Date().toISOString().slice(0, 10);
  await Deno.mkdir(`${root}tools/bench/results`, { recursive: true });
  await Deno.writeTextFile(
    `${root}tools/bench/results/${date}.md`,
    `# Benchmark ${date}${quick ? " (quick)" : ""}\n\n${header}\n\n${table}\n\n${
      notes.join("\n")
    }\n`,
  );
  console.log(`\nwritten to tools/bench/results/${date}.md`);
} finally {
  for (const child of children) await stop(child);
  await admin.unsafe(`drop database if exists ${dbName} with (force)`);
  await admin.unsafe(`drop database if exists ${pgbenchDb} with (force)`);
  await admin.end();
  await Deno.remove(tmp, { recursive: true });
}
