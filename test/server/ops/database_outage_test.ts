/**
 * The service during a database outage, made by a TCP proxy between its pool and the test
 * PostgreSQL (the shared server is never stopped): requests answer 503 `database_unavailable`
 * with Retry-After within the acquire timeout (a page for browsers), /readyz answers 503 within
 * its own timeout and 200 again soon after the database is back, and no 503 counts as a client's
 * failed launch.
 */
import assert from "node:assert/strict";
import postgres from "postgres";
import { connect } from "../../../db/mod.ts";
import type { Backend, TestDatabase } from "../../helpers/db.ts";
import { TEST_DATABASE_URL } from "../../helpers/db.ts";
import { startTestService, type TestService } from "../../helpers/service.ts";
import { createTestApp, launchOk, signLaunch, type TestApp } from "../../helpers/launch.ts";
import { launchPayload } from "../../helpers/payload.ts";
import { waitUntil } from "../../helpers/crm_server.ts";
import { TcpProxy } from "../../db/tcp_proxy.ts";

const ACQUIRE_MS = 1_000;
const PROBE_MS = 1_000;
/** What a request may take beyond its timeout (in-process app, loaded CI machine). */
const SLACK_MS = 400;

/** A fresh PostgreSQL database reached through `proxy`, with a short acquire timeout. */
function proxiedBackend(proxy: TcpProxy): Backend {
  return {
    name: "postgres",
    async open() {
      const admin = postgres(TEST_DATABASE_URL, { max: 1, onnotice: () => {} });
      const name = `pl_test_${crypto.randomUUID().replaceAll("-", "").slice(0, 16)}`;
      await admin.unsafe(`create database ${name}`);
      const url = new URL(TEST_DATABASE_URL);
      url.pathname = `/${name}`;
      const db = await connect({
        databaseUrl: proxy.url(url.href),
        max: 4,
        acquireTimeoutMs: ACQUIRE_MS,
        connectTimeoutMs: 10_000,
      });
      const dataDir = await Deno.makeTempDir({ prefix: "pl-test-" });
      return {
        ...db,
        dataDir,
        url: url.href,
        async close() {
          await db.close();
          await admin.unsafe(`drop database if exists ${name} with (force)`);
          await admin.end();
          await Deno.remove(dataDir, { recursive: true });
        },
      } satisfies TestDatabase;
    },
  };
}

interface Outage {
  svc: TestService;
  proxy: TcpProxy;
  app: TestApp;
  token: string;
}

/** A started service with an app that launched once (its caches warm), through a proxy. */
async function setUp(): Promise<Outage> {
  const target = new URL(TEST_DATABASE_URL);
  const proxy = TcpProxy.start({ hostname: target.hostname, port: Number(target.port || 5432) });
  const svc = await startTestService(
    proxiedBackend(proxy),
    {
      LAUNCH_FAILURES_PER_MINUTE: "2",
      DATABASE_PROBE_TIMEOUT_MS: String(PROBE_MS),
      // The launch gate's wait (server/launch/launch_gate.ts) is bounded by it too.
      DATABASE_ACQUIRE_TIMEOUT_MS: String(ACQUIRE_MS),
    },
    {},
    { deliveryWorker: false },
  );
  const token = await svc.adminToken();
  const app = await createTestApp(svc, token);
  await launchOk(svc, app, launchPayload());
  return { svc, proxy, app, token };
}

async function tearDown(o: Outage): Promise<void> {
  o.proxy.resume();
  await o.svc.close();
  await o.proxy.close();
}

/** Sends a request and measures it. */
async function timedRequest(
  o: Outage,
  path: string,
  init?: RequestInit,
): Promise<{ res: Response; body: string; ms: number }> {
  const started = performance.now();
  const res = await o.svc.request(path, init);
  const body = await res.text();
  return { res, body, ms: performance.now() - started };
}

async function launch(o: Outage, accept: string) {
  return await timedRequest(o, `/portal/api/auth/app/${o.app.appName}`, {
    method: "POST",
    headers: { Accept: accept },
    body: new URLSearchParams({ signed_request: await signLaunch(launchPayload(), o.app.apiKey) }),
  });
}

/** Starts the outage and waits until the pool has seen its connections go. */
async function startOutage(o: Outage, fault: "refuse" | "blackhole"): Promise<void> {
  o.proxy[fault]();
  o.proxy.cut();
  await o.svc.db.sql`select 1`.catch(() => {});
}

for (const fault of ["refuse", "blackhole"] as const) {
  Deno.test({
    name: `database outage (${fault}): launches, REST and pages answer 503 in time, uncounted`,
    ignore: !TEST_DATABASE_URL,
    async fn() {
      const o = await setUp();
      try {
        await startOutage(o, fault);
        // More failed launches than LAUNCH_FAILURES_PER_MINUTE (2): none is a 429.
        for (let i = 0; i < 4; i++) {
          const { res, body, ms } = await launch(o, "application/json");
          assert.equal(res.status, 503, body);
          assert.equal(JSON.parse(body).code, "database_unavailable");
          assert.equal(res.headers.get("Retry-After"), "5");
          assert.ok(ms < ACQUIRE_MS + SLACK_MS, `launch answered after ${ms} ms`);
        }
        // More launches at once than the launch gate holds (three per pool connection): those
        // that waited at the gate are answered with the others, not an acquire timeout later.
        const burst = await Promise.all(
          Array.from(
            { length: o.svc.deps.launchGate.capacity + 10 },
            () => launch(o, "application/json"),
          ),
        );
        assert.deepEqual([...new Set(burst.map((b) => b.res.status))], [503]);
        const slowest = Math.max(...burst.map((b) => b.ms));
        assert.ok(slowest < ACQUIRE_MS + SLACK_MS, `a launch of the burst took ${slowest} ms`);
        assert.deepEqual(o.svc.deps.launchGate.load, { active: 0, waiting: 0 });
        const page = await launch(o, "text/html,application/xhtml+xml");
        assert.equal(page.res.status, 503);
        assert.match(page.res.headers.get("Content-Type") ?? "", /text\/html/);
        assert.equal(page.res.headers.get("Retry-After"), "5");
        assert.match(page.body, /try again in a few seconds/);
        assert.ok(page.ms < ACQUIRE_MS + SLACK_MS, `launch page after ${page.ms} ms`);

        const rest = await timedRequest(o, "/api/v1/sessions", {
          headers: { Authorization: `Bearer ${o.token}` },
        });
        assert.equal(rest.res.status, 503, rest.body);
        assert.equal(JSON.parse(rest.body).code, "database_unavailable");
        assert.equal(rest.res.headers.get("Retry-After"), "5");
        assert.ok(rest.ms < ACQUIRE_MS + SLACK_MS, `REST answered after ${rest.ms} ms`);

        const browser = await timedRequest(o, "/api/v1/sessions", {
          headers: { Authorization: `Bearer ${o.token}`, Accept: "text/html" },
        });
        assert.equal(browser.res.status, 503);
        assert.match(browser.body, /<h1>Temporarily unavailable<\/h1>/);
        assert.equal(browser.res.headers.get("Retry-After"), "5");

        o.proxy.resume();
        await waitUntil(
          async () => {
            const res = await o.svc.request("/readyz");
            await res.body?.cancel();
            return res.status === 200;
          },
          "readyz 200",
          5_000,
        );
        // The 503s counted nothing: the address is not refused.
        await launchOk(o.svc, o.app, launchPayload());
      } finally {
        await tearDown(o);
      }
    },
  });

  Deno.test({
    name: `database outage (${fault}): /readyz answers 503 within 1 s each time, 200 once back`,
    ignore: !TEST_DATABASE_URL,
    async fn() {
      const o = await setUp();
      try {
        await startOutage(o, fault);
        for (let i = 0; i < 3; i++) {
          const { res, body, ms } = await timedRequest(o, "/readyz");
          assert.equal(res.status, 503, body);
          assert.deepEqual(JSON.parse(body), { status: "unavailable", database: "unreachable" });
          assert.ok(ms < PROBE_MS + SLACK_MS, `readyz answered after ${ms} ms`);
        }
        o.proxy.resume();
        const back = performance.now();
        await waitUntil(
          async () => {
            const res = await o.svc.request("/readyz");
            await res.body?.cancel();
            return res.status === 200;
          },
          "readyz 200",
          5_000,
        );
        assert.ok(performance.now() - back < 5_000);
      } finally {
        await tearDown(o);
      }
    },
  });
}
