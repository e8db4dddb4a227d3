/**
 * Three service processes on one PostgreSQL with callbacks on, under launch traffic: one is killed
 * with SIGKILL while a callback of its own is in flight, another gets SIGTERM while one of its own
 * is held by the CRM. Every acknowledged launch is in the database, every event is delivered, an
 * event arrives twice only when an attempt was in flight at the kill or released at the shutdown,
 * one session's events arrive in order, and the released events arrive again within 2 s of the
 * graceful exit.
 */
import assert from "node:assert/strict";
import { postgresBackend, TEST_DATABASE_URL } from "../../helpers/db.ts";
import { type Running, startProcess } from "../../helpers/process.ts";
import { waitUntil } from "../../helpers/crm_server.ts";
import { connect } from "../../../db/mod.ts";
import { INTERRUPTED } from "../../../server/callbacks/delivery.ts";
import { launchForm, prepareDatabase, seedCallbacks } from "./fixture.ts";
import { type Hit, startHoldingCrm } from "./holding_crm.ts";

const SESSIONS = 24;
const LAUNCHES_PER_SESSION = 4;

Deno.test({
  name: "three processes: SIGKILL one and SIGTERM another mid-delivery; nothing lost, in order",
  ignore: !TEST_DATABASE_URL,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const db = await prepareDatabase(postgresBackend);
    const crm = startHoldingCrm();
    const processes: Running[] = [];
    try {
      const app = await seedCallbacks(db, crm.url, []);
      const common = {
        ...db.env,
        CALLBACK_ALLOW_PRIVATE_NETWORKS: "true",
        CALLBACK_POLL_MS: "100",
        CALLBACK_RETRY_BASE_MS: "20",
        LOG_LEVEL: "error",
        SHUTDOWN_DRAIN_MS: "300",
        SHUTDOWN_TIMEOUT_MS: "2000",
      };
      // A's claims are leased for 3 × 2 s + 2 s: its events come back 8 s after it dies. B and C
      // wait 20 s for an answer, longer than any hold here.
      const [a, b, c] = await Promise.all([
        startProcess({ ...common, CALLBACK_TIMEOUT_MS: "2000" }),
        startProcess({ ...common, CALLBACK_TIMEOUT_MS: "20000" }),
        startProcess({ ...common, CALLBACK_TIMEOUT_MS: "20000" }),
      ]);
      processes.push(a, b, c);
      crm.pids = [a, b, c].map((p) => p.process.pid);

      // Launch traffic: each session launched 4 times in turn, through the processes still up.
      const live = new Set([a, b, c]);
      const acknowledged: number[] = [];
      let turn = 0;
      const traffic = Promise.all(
        Array.from({ length: SESSIONS }, async (_, s) => {
          for (let l = 0; l < LAUNCHES_PER_SESSION; l++) {
            for (let tries = 0; tries < 5; tries++) {
              const target = [...live][turn++ % live.size];
              try {
                const res = await fetch(
                  `http://127.0.0.1:${target.port}/portal/api/auth/app/${app.appName}`,
                  {
                    method: "POST",
                    headers: { Accept: "application/json" },
                    body: await launchForm(app, `S${s}`),
                  },
                );
                const body = await res.json();
                if (res.status === 200) {
                  acknowledged.push(body.launchId);
                  break;
                }
              } catch { /* the process died under it: not acknowledged, try another */ }
            }
            await new Promise((r) => setTimeout(r, 30));
          }
        }),
      );

      await waitUntil(() => crm.hits.length >= 10, "callbacks to flow", 20_000);
      crm.holding = true;
      const heldBy = (pid: number) => () => crm.held().find((hit) => hit.owner === pid);
      const killedHit = await waitUntil(heldBy(a.process.pid), "a callback held from A", 10_000);
      a.process.kill("SIGKILL");
      live.delete(a);
      await a.process.status;
      const releasedHit = await waitUntil(heldBy(b.process.pid), "a callback held from B", 10_000);
      const bHeld = new Set<Hit>();
      for (const hit of crm.held()) if (hit.owner === b.process.pid) bHeld.add(hit);
      b.process.kill("SIGTERM");
      live.delete(b);
      // B's stay held until B gives up on them; everything else flows again.
      crm.holding = false;
      crm.release((hit) => !bHeld.has(hit));
      const { code } = await b.process.status;
      const bExited = performance.now();
      assert.equal(code, 0, b.output());

      await traffic;
      const check = await connect({ databaseUrl: db.env.DATABASE_URL });
      try {
        await waitUntil(
          async () => {
            const [r] = await check.sql`
            select count(*) filter (where status <> 'delivered')::int as open,
              count(*)::int as n from callback_events`;
            return r.open === 0 && r.n > 0;
          },
          "every event delivered",
          30_000,
        );
        c.process.kill("SIGTERM");
        assert.equal((await c.process.status).code, 0, c.output());

        const [{ found }] = await check.sql`
          select count(*)::int as found from launches
          where id = any(${acknowledged}) and outcome = 'ok'`;
        assert.ok(acknowledged.length >= SESSIONS * LAUNCHES_PER_SESSION);
        assert.equal(found, acknowledged.length, "every acknowledged launch is stored");

        const events = await check.sql<
          { id: number; webhookId: string; sessionId: number; attempts: number; errors: string[] }[]
        >`
          select e.id, e.webhook_id, e.session_id, e.attempts,
            coalesce((select json_agg(coalesce(t.error, '')) from callback_attempts t
              where t.event_id = e.id), '[]') as errors
          from callback_events e order by e.id`;
        const hitsOf = new Map<string, Hit[]>();
        for (const hit of crm.hits) {
          hitsOf.set(hit.webhookId, [...hitsOf.get(hit.webhookId) ?? [], hit]);
        }
        for (const e of events) {
          const hits = hitsOf.get(e.webhookId) ?? [];
          assert.ok(hits.some((h) => h.answered), `event ${e.id} delivered to the CRM`);
          assert.ok(
            !e.errors.some((err) => err && err !== INTERRUPTED),
            `event ${e.id}: ${e.errors}`,
          );
          if (hits.length > 1) {
            const diedInFlight = e.attempts > e.errors.length;
            const released = e.errors.includes(INTERRUPTED);
            assert.ok(diedInFlight || released, `event ${e.id} arrived ${hits.length} times`);
          }
        }
        const byHook = new Map(events.map((e) => [e.webhookId, e]));
        const killed = byHook.get(killedHit.webhookId)!;
        assert.ok(killed.attempts > killed.errors.length, "A's attempt died in flight");
        for (const hit of bHeld) {
          assert.ok(byHook.get(hit.webhookId)!.errors.includes(INTERRUPTED), "B released it");
          const again = hitsOf.get(hit.webhookId)!.find((h) => h.at > hit.at)!;
          assert.ok(
            again.at - bExited < 2_000,
            `redelivered ${Math.round(again.at - bExited)} ms after B`,
          );
        }
        assert.ok(bHeld.has(releasedHit));
        // One session's events: each arrives first after the last arrival of the one before.
        const bySession = Map.groupBy(events, (e) => e.sessionId);
        for (const list of bySession.values()) {
          for (let i = 1; i < list.length; i++) {
            const before = hitsOf.get(list[i - 1].webhookId)!.map((h) => h.at);
            const next = Math.min(...hitsOf.get(list[i].webhookId)!.map((h) => h.at));
            assert.ok(next > Math.max(...before), `session ${list[i].sessionId} out of order`);
          }
        }
      } finally {
        await check.close();
      }
    } finally {
      for (const p of processes) {
        try {
          p.process.kill("SIGKILL");
        } catch { /* gone */ }
        await p.process.status;
      }
      await crm.close();
      await db.close();
    }
  },
});
