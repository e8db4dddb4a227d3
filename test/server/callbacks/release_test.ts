/**
 * Shutdown of the delivery worker: it stops claiming, and the attempts still running when its
 * grace ends are abandoned and their events released (pending, due at once), so another worker or
 * process redelivers them within its poll instead of after the lease (3 × CALLBACK_TIMEOUT_MS).
 */
import assert from "node:assert/strict";
import { backends } from "../../helpers/db.ts";
import { uniqueId } from "../../helpers/shared.ts";
import { within } from "../../helpers/deadline.ts";
import { startProcess } from "../../helpers/process.ts";
import { connect } from "../../../db/mod.ts";
import { INTERRUPTED } from "../../../server/callbacks/delivery.ts";
import {
  CALLBACK_ENV,
  type CallbackFixture,
  callbackFixtures,
  type CrmServer,
  startCrmServer,
  withCrm,
} from "./fixture.ts";
import { prepareDatabase, seedCallbacks } from "../ops/fixture.ts";

const opts = { sanitizeOps: false, sanitizeResources: false };
// A lease of 62 s: an event redelivered within seconds was released, not taken over.
const fixtures = callbackFixtures(backends, { CALLBACK_TIMEOUT_MS: "20000" });

/** Launches once with the CRM holding the callback 4 s: its attempt is in flight on return. */
async function attemptHeld(f: CallbackFixture, crm: CrmServer) {
  const app = await f.app(crm);
  crm.script = [{ status: 200, delayMs: 4_000 }];
  const launched = await f.launch(app, { referenceId: uniqueId("R") });
  await crm.waitFor(1);
  return { worker: f.svc.deps.deliveries, launched, started: performance.now() };
}

for (const backend of backends) {
  const fixture = fixtures.get(backend)!;

  Deno.test(
    `callbacks: a stopping worker releases the attempt still running after its grace [${backend.name}]`,
    opts,
    withCrm(fixture, async (f, crm) => {
      const { worker, launched, started } = await attemptHeld(f, crm);
      try {
        await worker.stop(200);
        const ms = performance.now() - started;
        assert.ok(ms < 1_500, `stopped after ${Math.round(ms)} ms`);
        const [event] = await f.svc.db.sql`
          select status, attempts, lease_until is null as unleased, next_attempt_at <= now() as due,
            (select array_agg(error) from callback_attempts where event_id = e.id) as errors
          from callback_events e where webhook_id = ${crm.received[0].headers["webhook-id"]}`;
        assert.deepEqual(
          { ...event },
          { status: "pending", attempts: 1, unleased: true, due: true, errors: [INTERRUPTED] },
        );
      } finally {
        worker.start();
      }
      // Taken again at once (its session's later events wait for it, in order).
      await crm.waitFor(2, 2_000);
      assert.equal(crm.received[1].headers["webhook-id"], crm.received[0].headers["webhook-id"]);
      await f.settled("session.created", launched.sessionId);
    }),
  );
}

for (const backend of backends) {
  const fixture = fixtures.get(backend)!;

  Deno.test(
    `callbacks: a start during a pending stop; the stop ends, its grace its own attempt [${backend.name}]`,
    opts,
    withCrm(fixture, async (f, crm) => {
      const { worker, launched, started } = await attemptHeld(f, crm);
      const stopping = worker.stop(200);
      worker.start(); // a restart before the stop has ended
      await within("the pending stop", 10_000, stopping); // before the fix, it never ended
      const ms = performance.now() - started;
      assert.ok(ms < 1_500, `the pending stop resolved after ${Math.round(ms)} ms`);
      // The stop's grace released its attempt; the new run delivers it again, at once.
      await crm.waitFor(2, 2_000);
      assert.equal(crm.received[1].headers["webhook-id"], crm.received[0].headers["webhook-id"]);
      await f.settled("session.created", launched.sessionId);
      const [event] = await f.svc.db.sql`
        select (select array_agg(coalesce(error, '')) from callback_attempts
          where event_id = e.id) as errors
        from callback_events e where webhook_id = ${crm.received[0].headers["webhook-id"]}`;
      assert.deepEqual(event.errors, [INTERRUPTED, ""], "interrupted once, then delivered");
    }),
  );
}

for (const backend of backends) {
  Deno.test(
    `callbacks: SIGTERM releases a hung attempt; exit 0 within the timeout; redelivered at once [${backend.name}]`,
    opts,
    async () => {
      const crm = startCrmServer();
      const db = await prepareDatabase(backend);
      const env: Record<string, string> = {
        ...db.env,
        ...CALLBACK_ENV,
        CALLBACK_TIMEOUT_MS: "20000",
        CALLBACK_POLL_MS: "100",
        SHUTDOWN_DRAIN_MS: "200",
        SHUTDOWN_TIMEOUT_MS: "3000",
        LOG_LEVEL: "error",
      };
      try {
        const app = await seedCallbacks(db, crm.url, [uniqueId("R")]);
        crm.secrets.push(app.callbackSecret);
        crm.script = [{ status: 200, delayMs: 6_000 }];
        const first = await startProcess(env);
        await crm.waitFor(1, 30_000);
        // PostgreSQL: the next process runs already; embedded: it can only start afterwards.
        let second = backend.name === "postgres" ? await startProcess(env) : null;
        try {
          const signalled = performance.now();
          first.process.kill("SIGTERM");
          const { code } = await first.process.status;
          const exitedAt = performance.now();
          assert.equal(code, 0, first.output());
          assert.ok(exitedAt - signalled < 3_000, `${Math.round(exitedAt - signalled)} ms`);
          second ??= await startProcess(env);
          const readyAt = performance.now();
          await crm.waitFor(2, 10_000);
          const after = performance.now() - Math.max(exitedAt, readyAt);
          assert.ok(after < 2_000, `redelivered ${Math.round(after)} ms after the exit`);
        } finally {
          second?.process.kill("SIGTERM");
          await second?.process.status;
        }
        assert.equal(crm.received[1].headers["webhook-id"], crm.received[0].headers["webhook-id"]);
        assert.ok(crm.received.every((r) => r.verified));
        const check = await connect(
          env.DATABASE_URL ? { databaseUrl: env.DATABASE_URL } : { dataDir: env.DATA_DIR },
        );
        try {
          const [event] = await check.sql`
            select e.status, e.attempts, json_agg(t.error order by t.id) as errors
            from callback_events e join callback_attempts t on t.event_id = e.id
            where e.webhook_id = ${crm.received[0].headers["webhook-id"]}
            group by e.id`;
          assert.deepEqual(
            { ...event },
            { status: "delivered", attempts: 2, errors: [INTERRUPTED, null] },
          );
        } finally {
          await check.close();
        }
      } finally {
        await db.close();
        await crm.close();
      }
    },
  );
}
