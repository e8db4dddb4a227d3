/**
 * A backlog in the outbox: while claims come back full, the worker keeps a second batch out
 * beside the first (server/callbacks/worker.ts EXTRA_BATCHES), no more, and still delivers every
 * event once, each session's events in order.
 */
import assert from "node:assert/strict";
import { backends } from "../../helpers/db.ts";
import { callbackFixtures, startCrmServer, waitUntil } from "./fixture.ts";
import { DeliveryWorker } from "../../../server/callbacks/worker.ts";
import type { DeliveryContext } from "../../../server/callbacks/delivery.ts";
import type { Received } from "../../helpers/crm_server.ts";

const opts = { sanitizeOps: false, sanitizeResources: false };
const fixtures = callbackFixtures(backends);
const BATCH = 4;
const DELAY_MS = 400;

/**
 * The most callbacks that were being answered at one time: each is answered DELAY_MS after it
 * arrived, and a lane sends its next batch only after its last one was answered.
 */
function mostAtOnce(received: Received[]): number {
  const times = received.map((r) => r.at).sort((a, b) => a - b);
  return Math.max(...times.map((t) => times.filter((u) => u >= t && u < t + DELAY_MS - 1).length));
}

for (const backend of backends) {
  for (const [extraBatches, most] of [[undefined, 2 * BATCH], [0, BATCH]] as const) {
    Deno.test(
      `callbacks: a backlog goes out ${most === BATCH ? "one batch" : "two batches"} at a time ` +
        `(extraBatches ${extraBatches ?? "default"}), in order per session [${backend.name}]`,
      opts,
      async () => {
        const f = await fixtures.get(backend)!();
        const crm = startCrmServer();
        // The service's own worker stands aside, so that the events wait for the one under test.
        await f.svc.deps.deliveries.stop();
        try {
          crm.fallback = { status: 200, body: "{}", delayMs: DELAY_MS };
          const app = await f.app(crm);
          const sessions: number[] = [];
          for (let i = 0; i < 10; i++) {
            sessions.push((await f.launch(app, { referenceId: `BL${i}` })).sessionId as number);
          }
          // Each session's events can only go one at a time: 10 sessions fill two batches of 4.
          for (let round = 0; round < 2; round++) {
            for (const id of sessions) {
              await f.svc.db.sql`select emit_callback_events(${id}::bigint,
              '[{"type": "session.updated"}]'::jsonb, now()::text, null)`;
            }
          }
          const events = await f.svc.db.sql<{ id: number; sessionId: number; webhookId: string }[]>`
          select id::int, session_id::int as "sessionId", webhook_id as "webhookId"
          from callback_events where session_id in ${f.svc.db.sql(sessions)} order by id`;
          assert.ok(events.length >= 3 * BATCH, `${events.length} events queued`);

          // The service's context, with a timeout no loaded machine reaches (no retry, no double).
          const ctx = (f.svc.deps.deliveries as unknown as { ctx: DeliveryContext }).ctx;
          const worker = new DeliveryWorker(
            { ...ctx, settings: { ...ctx.settings, timeoutMs: 10_000 } },
            { pollMs: 50, batch: BATCH, extraBatches },
          );
          worker.start();
          try {
            await crm.waitFor(events.length, 30_000);
            await waitUntil(async () => {
              const [{ open }] = await f.svc.db.sql`select count(*)::int as open
              from callback_events where session_id in ${f.svc.db.sql(sessions)}
              and status <> 'delivered'`;
              return open === 0;
            }, "every event recorded as delivered");
          } finally {
            await worker.stop();
          }

          const ids = crm.received.map((r) => r.headers["webhook-id"]);
          assert.equal(new Set(ids).size, ids.length, "an event delivered twice");
          assert.deepEqual(new Set(ids), new Set(events.map((e) => e.webhookId)));
          const idOf = new Map(events.map((e) => [e.webhookId, e]));
          for (const session of sessions) {
            const arrived = ids.map((w) => idOf.get(w)!).filter((e) => e.sessionId === session);
            const eventIds = arrived.map((e) => e.id);
            assert.deepEqual(eventIds, [...eventIds].sort((a, b) => a - b), `session ${session}`);
          }
          const atOnce = mostAtOnce(crm.received);
          assert.ok(atOnce > most - BATCH, `at most ${atOnce} callbacks at once`);
          assert.ok(atOnce <= most, `${atOnce} callbacks at once, over ${most}`);
        } finally {
          f.svc.deps.deliveries.start();
          await crm.close();
        }
      },
    );
  }
}
