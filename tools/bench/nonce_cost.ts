/**
 * `deno task bench-nonce [--launches N]`: what replay protection costs a launch. One service
 * in process on a fresh PostgreSQL database (DATABASE_URL, default the machine's), two apps that
 * differ only in `replayProtection` ("required": issuedAt checked and the nonce stored in the
 * launch's transaction; "off": no check, nothing stored), N launches of each with distinct
 * payloads, interleaved so both see the same database state. Prints, per policy, the mean and
 * p50/p99 latency, the database round trips per launch and the used-nonce rows written, then
 * the difference; writes tools/bench/results/<date>-nonce.md. Sequential on purpose: it measures
 * the added work per launch, not throughput (that is `deno task bench`).
 */
import postgres from "postgres";
import { connect } from "../../db/mod.ts";
import { loadConfig } from "../../server/config.ts";
import { freshnessFields, SIGNED_REQUEST_FIELD } from "../../server/launch/contract.ts";
import { signPayload } from "../../server/launch/signed_request.ts";
import { startService } from "../../server/service.ts";

const argIndex = Deno.args.indexOf("--launches");
const LAUNCHES = argIndex >= 0 ? Number(Deno.args[argIndex + 1]) : 2000;
const databaseUrl = Deno.env.get("DATABASE_URL") ?? "postgres://postgres@127.0.0.1:5432/test";
const CLIENT = { id: "bench", secret: "bench-secret-0123456789abcdefghijklmnopqrstuvwxyz" };
const root = new URL("../../", import.meta.url).pathname;

/** Latency summary of one policy. */
interface Summary {
  policy: string;
  meanMs: number;
  p50Ms: number;
  p99Ms: number;
  roundTrips: number;
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))];

const dbName = `pl_bench_nonce_${Date.now()}`;
const admin = postgres(databaseUrl, { max: 1, onnotice: () => {} });
await admin.unsafe(`create database ${dbName}`);
const url = new URL(databaseUrl);
url.pathname = `/${dbName}`;
const tmp = await Deno.makeTempDir({ prefix: "pl-bench-nonce-" });
let queries = 0;
const db = await connect({ databaseUrl: url.href, max: 10, onQuery: () => queries++ });
const svc = await startService(
  loadConfig({
    DATABASE_URL: url.href,
    SECRET_KEY: "bench-secret-key-0123456789abcdefghijkl",
    BOOTSTRAP_CLIENT_ID: CLIENT.id,
    BOOTSTRAP_CLIENT_SECRET: CLIENT.secret,
    DATA_DIR: tmp,
    LOG_LEVEL: "error",
    LAUNCH_FAILURES_PER_MINUTE: "1000000",
    PUBLIC_URL: "http://bench.test",
  }),
  { db, demoData: false, deliveryWorker: false },
);
try {
  const call = (path: string, init: RequestInit) =>
    svc.app.request(`http://bench.test${path}`, init);
  const token = (await (await call("/api/v1/oauth2/token", {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
    body: `grant_type=client_credentials&client_id=${CLIENT.id}&client_secret=${CLIENT.secret}`,
  })).json()).access_token;
  const keys: Record<string, string> = {};
  for (const policy of ["required", "off"]) {
    const res = await call("/api/v1/admin/apps", {
      method: "POST",
      headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
      body: JSON.stringify({
        appName: `nonce-${policy}`,
        name: policy,
        authType: "signed_request",
        replayProtection: policy,
      }),
    });
    if (res.status !== 201) throw new Error(`app ${policy}: ${res.status} ${await res.text()}`);
    keys[policy] = (await res.json()).apiKey;
  }

  console.log(`bench-nonce: ${LAUNCHES} launches per policy, interleaved ...`);
  const times: Record<string, number[]> = { required: [], off: [] };
  const trips: Record<string, number> = { required: 0, off: 0 };
  for (let i = 0; i < LAUNCHES * 2; i++) {
    const policy = i % 2 === 0 ? "required" : "off";
    const n = i >> 1;
    const payload = {
      algorithm: "HMACSHA256",
      ...(policy === "required" ? freshnessFields() : {}),
      context: {
        user: {
          id: `agent${n % 50}`,
          email: `agent${n % 50}@bench.example.com`,
          first_name: "Ada",
          last_name: "Lovelace",
        },
        environment: {
          parameters: {
            referenceNumber: `R${i}`,
            contactId: `C${n % 500}`,
            contactFirstName: "Grace",
            contactLastName: "Hopper",
            contactEmail: `c${n % 500}@bench.example.org`,
            contactPhone: "5559876543",
          },
        },
      },
    };
    const body = new URLSearchParams({
      [SIGNED_REQUEST_FIELD]: await signPayload(JSON.stringify(payload), keys[policy]),
    });
    const before = queries;
    const started = performance.now();
    const res = await call(`/portal/api/auth/app/nonce-${policy}`, {
      method: "POST",
      headers: { Accept: "application/json" },
      body,
    });
    await res.body?.cancel();
    times[policy].push(performance.now() - started);
    trips[policy] += queries - before;
    if (res.status !== 200) throw new Error(`launch ${policy}: ${res.status}`);
    if (i % 1000 === 999) console.log(`  ${i + 1} / ${LAUNCHES * 2}`);
  }
  const [{ nonces }] = await db.sql`select count(*)::int as nonces from launch_nonces`;

  const summaries: Summary[] = ["required", "off"].map((policy) => {
    const sorted = [...times[policy]].sort((a, b) => a - b);
    return {
      policy,
      meanMs: sorted.reduce((a, b) => a + b, 0) / sorted.length,
      p50Ms: percentile(sorted, 0.5),
      p99Ms: percentile(sorted, 0.99),
      roundTrips: trips[policy] / LAUNCHES,
    };
  });
  const [req, off] = summaries;
  const lines = [
    `# Replay-protection cost ${new Date().toISOString().slice(0, 10)}`,
    "",
    `Command: \`deno task bench-nonce --launches ${LAUNCHES}\`; Deno ${Deno.version.deno}; ` +
    `${(await admin`select version()`)[0].version.split(" ").slice(0, 2).join(" ")}; ` +
    `${navigator.hardwareConcurrency} cores; in-process service, sequential launches.`,
    "",
    "| policy | mean ms | p50 ms | p99 ms | round trips / launch |",
    "|---|---:|---:|---:|---:|",
    ...summaries.map((s) =>
      `| ${s.policy} | ${s.meanMs.toFixed(2)} | ${s.p50Ms.toFixed(2)} | ${s.p99Ms.toFixed(2)} | ` +
      `${s.roundTrips.toFixed(2)} |`
    ),
    "",
    `Used-nonce rows written: ${nonces} (one per required launch). Added per launch: ` +
    `${(req.meanMs - off.meanMs).toFixed(2)} ms mean, ` +
    `${(req.roundTrips - off.roundTrips).toFixed(2)} round trips.`,
  ];
  console.log(lines.join("\n"));
  const out = `${root}tools/bench/results/${new Date().toISOString().slice(0, 10)}-nonce.md`;
  await Deno.writeTextFile(out, lines.join("\n") + "\n");
  console.log(`bench-nonce: wrote ${out}`);
} finally {
  await svc.close();
  await db.close().catch(() => {});
  await admin.unsafe(`drop database if exists ${dbName} with (force)`);
  await admin.end();
  await Deno.remove(tmp, { recursive: true });
}
