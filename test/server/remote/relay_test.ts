/**
 * The signaling relay across processes, without a browser or a socket: two relays on their own
 * connections to one PostgreSQL database (what two service processes hold). What one publishes
 * reaches the other's subscriber only through NOTIFY and the rows: in order, a 9 KB offer whole
 * (NOTIFY payloads are capped at 8,000 bytes), a late subscriber catches up from `after`, and
 * concurrent writers lose and double nothing.
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
      assert.ok(got.every((r, i) => i === 0 || Number(r.seq) > Number(got[i - 1].seq)));
      sub.close();
      // A late subscriber from the middle reads the rest, in order.
      const late: SignalRow[] = [];
      relayB.subscribe(remoteId, "agent", Number(got[10].seq), (row) => late.push(row));
      while (late.length < 20 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      assert.deepEqual(late.map((r) => r.seq), got.slice(11).map((r) => r.seq));
      // Concurrent writers (both sides and the service, on many connections): every message
      // reaches the other side exactly once, none skipped by a later one committing first.
      const all: SignalRow[] = [];
      const watcher = relayB.subscribe(
        remoteId,
        "agent",
        Number(late.at(-1)!.seq),
        (row) => all.push(row),
      );
      await Promise.all([
        ...[...Array(150).keys()].map((i) => relayA.publish(remoteId, "customer", { i })),
        ...[...Array(50).keys()].map((i) => relayA.publish(remoteId, "service", { s: i })),
        ...[...Array(50).keys()].map((i) => relayA.publish(remoteId, "agent", { a: i })),
      ]);
      const until = Date.now() + 10_000;
      while (all.length < 200 && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
      await new Promise((r) => setTimeout(r, 200));
      watcher.close();
      assert.equal(all.length, 200, "each of the other sides' messages once");
      assert.equal(new Set(all.map((r) => r.seq)).size, 200);
      assert.ok(all.every((r, i) => i === 0 || Number(r.seq) > Number(all[i - 1].seq)));
    } finally {
      await relayB.stop();
      await other.end();
      await otherListen.end();
      await svc.close();
    }
  },
});
