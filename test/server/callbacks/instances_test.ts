/**
 * Several processes on one database: two services share the outbox without delivering an event
 * twice (PostgreSQL), and a process killed with SIGKILL in the middle of a delivery loses nothing:
 * the next process takes the event over when its lease runs out (PostgreSQL and embedded).
 */
import assert from "node:assert/strict";
import { backends, pgliteDataDir } from "../../helpers/db.ts";
import { startTestService } from "../../helpers/service.ts";
import { startCrmServer, waitUntil } from "../../helpers/crm_server.ts";
import { startProcess } from "../../helpers/process.ts";
import { uniqueId } from "../../helpers/shared.ts";
import { signLaunch } from "../../helpers/launch.ts";
import { launchPayload } from "../../helpers/payload.ts";
import { connect } from "../../../db/mod.ts";
import { loadConfig } from "../../../server/config.ts";
import { startService } from "../../../server/service.ts";
import { CALLBACK_ENV } from "./fixture.ts";

const opts = { sanitizeOps: false, sanitizeResources: false };
const SECRET_KEY = "test-secret-key-0123456789abcdefghijklmnop";

/** Creates an app calling `crmUrl` back and makes `n` sessions with a referenceId. */
async function seed(
  svc: Awaited<ReturnType<typeof startTestService>>,
  crm: { url: string; secrets: string[] },
  n: number,
) {
  const crmUrl = crm.url;
  const admin = await svc.adminToken();
  const res = await svc.api("POST", "/api/v1/admin/apps", admin, {
    appName: uniqueId("multi"),
    name: "Multi",
    authType: "signed_request",
    callbackUrl: `${crmUrl}/hooks/{referenceId}`,
  });
  const app = await res.json();
  crm.secrets.push(app.callbackSecret);
  for (let i = 0; i < n; i++) {
    const launched = await svc.request(`/portal/api/auth/app/${app.appName}`, {
      method: "POST",
      headers: { Accept: "application/json" },
      body: new URLSearchParams({
        signed_request: await signLaunch(
          launchPayload({ referenceId: `R${i}`, contactId: uniqueId("C") }, {
            id: uniqueId("ag"),
            email: `${uniqueId("ag")}@example.com`,
          }),
          app.apiKey,
        ),
      }),
    });
    assert.equal(launched.status, 200);
    await launched.body?.cancel();
  }
  return app;
}

for (const backend of backends.filter((b) => b.name === "postgres")) {
  Deno.test(
    "callbacks: two instances on one PostgreSQL deliver each event once",
    opts,
    async () => {
      const crm = startCrmServer();
      const a = await startTestService(backend, CALLBACK_ENV, {}, { deliveryWorker: false });
      let b: Awaited<ReturnType<typeof startService>> | undefined;
      try {
        await seed(a, crm, 60);
        const db = await connect({ databaseUrl: a.db.url });
        b = await startService(
          loadConfig({
            DATABASE_URL: a.db.url,
            SECRET_KEY,
            LOG_LEVEL: "silent",
            ...CALLBACK_ENV,
          }),
          { db, demoData: false, deliveryWorker: false },
        );
        a.deps.deliveries.start();
        b.deps.deliveries.start();
        await crm.waitFor(60);
        await waitUntil(async () => {
          const [r] = await a.db.sql`select count(*)::int as n from callback_events
          where status = 'delivered'`;
          return r.n === 60;
        }, "60 delivered events");
        const ids = crm.received.map((r) => r.headers["webhook-id"]);
        assert.equal(ids.length, 60, "no event delivered twice");
        assert.equal(new Set(ids).size, 60);
        assert.ok(crm.received.every((r) => r.verified));
        const [{ n }] = await a.db.sql`select count(*)::int as n from callback_attempts`;
        assert.equal(n, 60, "one attempt each");
      } finally {
        await b?.close();
        await a.close();
        await crm.close();
      }
    },
  );
}

for (const backend of backends) {
  Deno.test(
    `callbacks: a process killed mid-delivery loses nothing; the next one delivers [${backend.name}]`,
    opts,
    async () => {
      const crm = startCrmServer();
      // Embedded: a data folder the processes open in turn; PostgreSQL: a fresh database.
      const pg = backend.name === "postgres" ? await backend.open() : null;
      const dataDir = pg ? await Deno.makeTempDir({ prefix: "pl-kill-" }) : await pgliteDataDir();
      const env: Record<string, string> = {
        SECRET_KEY,
        DATA_DIR: dataDir,
        ...(pg ? { DATABASE_URL: pg.url! } : {}),
        ...CALLBACK_ENV,
        LOG_LEVEL: "error",
      };
      try {
        const seeded = await startService(
          loadConfig({
            ...env,
            BOOTSTRAP_CLIENT_ID: "kill-admin",
            BOOTSTRAP_CLIENT_SECRET: "x".repeat(40),
          }),
          { demoData: false, deliveryWorker: false },
        );
        const request = (path: string, init?: RequestInit) =>
          seeded.app.request(`http://portal.test${path}`, init);
        const token = (await (await request("/api/v1/oauth2/token", {
          method: "POST",
          body: new URLSearchParams({
            grant_type: "client_credentials",
            client_id: "kill-admin",
            client_secret: "x".repeat(40),
          }),
        })).json()).access_token;
        await seed(
          {
            adminToken: () => Promise.resolve(token),
            api: (method: string, path: string, t: string, body?: unknown) =>
              request(path, {
                method,
                headers: { Authorization: `Bearer ${t}`, "Content-Type": "application/json" },
                body: JSON.stringify(body),
              }),
            request,
          } as unknown as Awaited<ReturnType<typeof startTestService>>,
          crm,
          1,
        );
        await seeded.close();
        // The first process takes the event; the CRM holds its request; the process dies.
        crm.script = [{ status: 200, delayMs: 3_000 }];
        const first = await startProcess(env);
        await crm.waitFor(1, 30_000);
        first.process.kill("SIGKILL");
        await first.process.status;
        const second = await startProcess(env);
        try {
          await crm.waitFor(2, 30_000);
        } finally {
          second.process.kill("SIGTERM");
          await second.process.status;
        }
        assert.equal(crm.received[0].headers["webhook-id"], crm.received[1].headers["webhook-id"]);
        assert.ok(crm.received.every((r) => r.verified));
        const db = await connect(pg ? { databaseUrl: pg.url } : { dataDir });
        try {
          const [e] = await db.sql`select status, attempts from callback_events`;
          assert.equal(e.status, "delivered");
          assert.equal(e.attempts, 2);
        } finally {
          await db.close();
        }
      } finally {
        await pg?.close();
        await Deno.remove(dataDir, { recursive: true }).catch(() => {});
        await crm.close();
      }
    },
  );
}
