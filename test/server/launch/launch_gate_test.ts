/**
 * The launch gate (server/launch/launch_gate.ts): at most its capacity of launches at once, the
 * rest admitted in order of arrival; a wait bounded by the acquire timeout and refused at once
 * when a launch in the gate found the database unavailable. In the service: a launch past
 * capacity waits (the gauge counts it) and runs once a place is free.
 */
import assert from "node:assert/strict";
import postgres from "postgres";
import { LaunchGate } from "../../../server/launch/launch_gate.ts";
import { DatabaseUnavailableError } from "../../../db/errors.ts";
import { postgresBackend, TEST_DATABASE_URL } from "../../helpers/db.ts";
import { startTestService } from "../../helpers/service.ts";
import { createTestApp, signLaunch } from "../../helpers/launch.ts";
import { launchPayload } from "../../helpers/payload.ts";
import { waitUntil } from "../../helpers/crm_server.ts";

/** Settles `p` into what happened to it, or "pending" after a turn of the event loop. */
async function state(p: Promise<unknown>): Promise<string> {
  const seen = await Promise.race([
    p.then(() => "admitted", (e) => e instanceof DatabaseUnavailableError ? "refused" : `${e}`),
    new Promise((r) => setTimeout(() => r("pending"), 10)),
  ]);
  return seen as string;
}

Deno.test("launch gate: capacity, then in order of arrival", async () => {
  const gate = new LaunchGate(2, 60_000);
  assert.equal(LaunchGate.forPool(10, 1).capacity, 30, "three per pool connection");
  const [a, b, c, d] = [gate.enter(), gate.enter(), gate.enter(), gate.enter()];
  assert.deepEqual([await state(a), await state(b)], ["admitted", "admitted"]);
  assert.deepEqual([await state(c), await state(d)], ["pending", "pending"]);
  assert.deepEqual(gate.load, { active: 2, waiting: 2 });
  gate.leave();
  assert.deepEqual([await state(c), await state(d)], ["admitted", "pending"], "the first to wait");
  gate.leave();
  assert.equal(await state(d), "admitted");
  gate.leave();
  gate.leave();
  assert.deepEqual(gate.load, { active: 0, waiting: 0 });
  assert.equal(await state(gate.enter()), "admitted", "a free gate admits at once");
  gate.leave();
});

Deno.test("launch gate: a wait ends with the timeout, or at once when the database is gone", async () => {
  const gate = new LaunchGate(1, 50);
  await gate.enter();
  const started = performance.now();
  const late = gate.enter();
  await assert.rejects(late, DatabaseUnavailableError);
  const waited = performance.now() - started;
  assert.ok(waited >= 45 && waited < 1_000, `refused after ${waited} ms`);
  assert.deepEqual(gate.load, { active: 1, waiting: 0 }, "the refused wait is gone");

  const slow = new LaunchGate(1, 60_000);
  await slow.enter();
  const waiting = [slow.enter(), slow.enter()];
  slow.leave(true); // the launch in the gate found the database unavailable
  assert.deepEqual(await Promise.all(waiting.map(state)), ["refused", "refused"]);
  assert.deepEqual(slow.load, { active: 0, waiting: 0 });
  const [m] = await Promise.allSettled(waiting);
  assert.match(String((m as PromiseRejectedResult).reason), /No database connection within/);
});

Deno.test({
  name: "launch gate: in the service, a launch past capacity waits, then runs",
  ignore: !TEST_DATABASE_URL,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    // One pool connection: a gate of three.
    const svc = await startTestService(postgresBackend, { DATABASE_POOL_SIZE: "1" });
    const holder = postgres(svc.db.url!, { max: 1, onnotice: () => {} });
    try {
      const token = await svc.adminToken();
      const app = await createTestApp(svc, token);
      const launch = async () =>
        await svc.request(`/portal/api/auth/app/${app.appName}`, {
          method: "POST",
          headers: { Accept: "application/json" },
          body: new URLSearchParams({
            signed_request: await signLaunch(launchPayload(), app.apiKey),
          }),
        });
      const bodies = await holder.begin(async (tx) => {
        await tx`lock table launches in exclusive mode`; // every launch writes its log row
        const running = [launch(), launch(), launch(), launch()];
        await waitUntil(
          () => svc.deps.launchGate.load.waiting === 1,
          "a launch waiting at the gate",
        );
        assert.deepEqual(svc.deps.launchGate.load, { active: 3, waiting: 1 });
        return running;
      });
      const answers = await Promise.all(bodies);
      assert.deepEqual(answers.map((r) => r.status), [200, 200, 200, 200]);
      await Promise.all(answers.map((r) => r.body?.cancel()));
      assert.deepEqual(svc.deps.launchGate.load, { active: 0, waiting: 0 });
    } finally {
      await holder.end();
      await svc.close();
    }
  },
});
