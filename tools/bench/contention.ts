/**
 * `deno task bench-contention [CLIENTS,...]` (default 10,16,64): why the launch's database work
 * scales as it does. On a fresh database with the bench's data, pgbench calls launch_apply alone
 * (the database-limit case's inputs, tools/bench/database_limit.ts) for 10 s at each client
 * count while PostgreSQL's wait events of those backends are sampled every 100 ms; prints the
 * rate, the WAL written per call, the share of each wait event (`CPU:-` is running), and the
 * relation locks one launch holds at its end (how many PostgreSQL kept on a backend's fast path,
 * how many went through the shared lock manager). The app has a callback URL, as in the bench, so
 * each launch writes its callback event (nothing delivers it here).
 */
import postgres from "postgres";
import { migrate } from "../../db/migrate.ts";
import { loadData } from "./launch_data.ts";
import { applyStoredInput, prepareDatabaseLimit } from "./database_limit.ts";
import { pgbench } from "./load.ts";

const databaseUrl = Deno.env.get("DATABASE_URL") ?? "postgres://postgres@127.0.0.1:5432/test";
const counts = (Deno.args[0] ?? "10,16,64").split(",").map(Number);
if (counts.some((n) => !Number.isInteger(n) || n < 1)) {
  throw new Error("CLIENTS is a comma-separated list of positive whole numbers, e.g. 10,64");
}
const SECONDS = 10;
const admin = postgres(databaseUrl, { max: 1, onnotice: () => {} });
const db = `pl_contention_${Date.now()}`;
const url = new URL(databaseUrl);
url.pathname = `/${db}`;
const tmp = await Deno.makeTempDir({ prefix: "pl-contention-" });
await admin.unsafe(`create database ${db}`);
const sql = postgres(url.href, { max: 2, onnotice: () => {} });
try {
  console.log(`launch_apply contention: ${counts.join(", ")} clients, ${SECONDS} s each`);
  await migrate(sql);
  const [{ id }] = await sql`insert into apps (app_name, name, auth_type, api_key_sealed,
      callback_url)
    values ('bench', 'Bench', 'signed_request', 'x', 'http://127.0.0.1:9/callbacks') returning id`;
  console.log("  loading data and storing inputs ...");
  const minSession = await loadData(sql, Number(id));
  const inputs = 3_000 * SECONDS * counts.length;
  const app = { id: Number(id), appName: "bench" };
  const script = await prepareDatabaseLimit(sql, app, inputs + 1, minSession, Date.now(), tmp);
  await sql`vacuum analyze`;
  // One launch (the last input, never drawn by pgbench), rolled back: the locks it held.
  let locks: { fastpath: boolean; n: number }[] = [];
  const rollback = new Error("rollback");
  await sql.begin(async (tx) => {
    await applyStoredInput(tx, inputs + 1);
    locks = await tx<{ fastpath: boolean; n: number }[]>`
      select fastpath, count(*)::int as n from pg_locks
      where pid = pg_backend_pid() and locktype = 'relation' group by 1`;
    throw rollback;
  }).catch((err) => {
    if (err !== rollback) throw err;
  });
  const held = (fast: boolean) => locks.find((r) => r.fastpath === fast)?.n ?? 0;
  console.log(
    `one launch holds ${held(true) + held(false)} relation locks: ${held(true)} on its ` +
      `backend's fast path, ${held(false)} through the shared lock manager`,
  );
  for (const clients of counts) {
    const waits = new Map<string, number>();
    let running = true;
    const sampler = (async () => {
      const probe = postgres(url.href, { max: 1, onnotice: () => {} });
      while (running) {
        const rows = await probe<{ w: string; n: number }[]>`
          select coalesce(wait_event_type, 'CPU') || ':' || coalesce(wait_event, '-') as w,
            count(*)::int as n
          from pg_stat_activity
          where datname = ${db} and state = 'active' and pid <> pg_backend_pid()
          group by 1`;
        for (const r of rows) waits.set(r.w, (waits.get(r.w) ?? 0) + r.n);
        await new Promise((r) => setTimeout(r, 100));
      }
      await probe.end();
    })();
    const wal0 = await walStats(sql);
    const run = await pgbench(SECONDS, databaseUrl, "launch_apply", db, ["-f", script], clients);
    const wal1 = await walStats(sql);
    running = false;
    await sampler;
    const total = [...waits.values()].reduce((a, b) => a + b, 0) || 1;
    const calls = run.tps * SECONDS;
    const per = (k: keyof typeof wal0) => (wal1[k] - wal0[k]) / calls;
    console.log(
      `${clients} clients: ${run.tps.toFixed(0)} launch_apply/s; per call ` +
        `${per("records").toFixed(1)} WAL records, ${(per("bytes") / 1024).toFixed(1)} KB of ` +
        `WAL, ${per("fpi").toFixed(2)} full-page images (the whole server's WAL); wait events:`,
    );
    for (const [w, n] of [...waits].sort((a, b) => b[1] - a[1]).slice(0, 8)) {
      console.log(`  ${(100 * n / total).toFixed(1).padStart(5)} %  ${w}`);
    }
  }
} finally {
  await sql.end();
  await admin.unsafe(`drop database if exists ${db} with (force)`);
  await admin.end();
  await Deno.remove(tmp, { recursive: true });
}

/** The server's WAL written so far (pg_stat_wal, PostgreSQL 14 and later). */
async function walStats(
  sql: postgres.Sql,
): Promise<{ records: number; bytes: number; fpi: number }> {
  const [w] = await sql<{ records: string; bytes: string; fpi: string }[]>`
    select wal_records as records, wal_bytes as bytes, wal_fpi as fpi from pg_stat_wal`;
  return { records: Number(w.records), bytes: Number(w.bytes), fpi: Number(w.fpi) };
}
