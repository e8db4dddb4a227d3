/**
 * The signaling relay across processes, without a browser or a socket: two relays on their own
 * connections to one PostgreSQL database (what two service processes hold). What one publishes
 * reaches the other's subscriber only through NOTIFY (ids) and the rows: in order, a 9 KB offer
 * whole (NOTIFY payloads are capped at 8,000 bytes), and a late subscriber catches up from `after`.
 */
import assert from "node:assert/strict";
import postgres from "postgres";
import { TEST_DATABASE_URL } from "../../helpers/db.ts";
import { SignalRelay } from "../../../server/remote/relay.ts";
import type { SignalRow } from "../../../db/queries/remote.ts";
import { landAgent, remoteService } from "./fixture.ts";
import { postgresBackend } from "../../helpers/db.ts";

Deno.test({
  name: "relay between two processes' connections over PostgreSQL: order, 9 KB, catch-up",
  ignore: !TEST_DATABASE_URL,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const { svc, app } = await remoteService(postgresBackend);
    const other = postgres(svc.db.url!, {
      max: 2,
      onnotice: () => {},
      transform: { column: { from: postgres.toCamel, to: postgres.fromCamel } },
    });
    const otherListen = postgres(svc.db.url!, { max: 1, onnotice: () => {} });
    const relayB = new SignalRelay(other, otherListen);
    try {
      await relayB.start();
      const { remoteId } = await landAgent(svc, app);
      const relayA = svc.deps.remote.relay;
      const got: SignalRow[] = [];
      const sub = relayB.subscribe(remoteId, "agent", 0, (row) => got.push(row));
      const offer = { type: "sdp", gen: 1, description: { type: "offer", sdp: "a".repeat(9_000) } };
      await relayA.publish(remoteId, "customer", offer);
      for (let i = 0; i < 30; i++) await relayA.publish(remoteId, "customer", { type: "n", i });
      await relayA.publish(remoteId, "agent", { type: "mine" }); // its own side: not delivered
      const deadline = Date.now() + 5_000;
      while (got.length < 31 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      assert.equal(got.length, 31);
      assert.deepEqual(JSON.parse(got[0].body), offer);
      assert.deepEqual(got.slice(1).map((r) => JSON.parse(r.body).i), [...Array(30).keys()]);
      assert.ok(got.every((r, i) => i === 0 || Number(r.id) > Number(got[i - 1].id)));
      sub.close();
      // A late subscriber from the middle reads the rest, in order.
      const late: SignalRow[] = [];
      relayB.subscribe(remoteId, "agent", got[10].id, (row) => late.push(row));
      while (late.length < 20 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      assert.deepEqual(late.map((r) => r.id), got.slice(11).map((r) => r.id));
    } finally {
      await relayB.stop();
      await other.end();
      await otherListen.end();
      await svc.close();
    }
  },
});
