/**
 * The background workers' loop (server/background/polling_loop.ts): a start while a stop still
 * waits for its batch never runs two batches at once, the pending stop resolves, and the new run
 * goes on after it.
 */
import assert from "node:assert/strict";
import { PollingLoop } from "../../../server/background/polling_loop.ts";
import { waitUntil } from "../../helpers/crm_server.ts";

/** A loop whose batches each wait for `release()`; counts batches begun and at once. */
function heldLoop() {
  const state = { begun: 0, running: 0, most: 0, release: () => {} };
  const loop = new PollingLoop("test", async () => {
    state.begun++;
    state.running++;
    state.most = Math.max(state.most, state.running);
    await new Promise<void>((resolve) => state.release = resolve);
    state.running--;
    return 1; // always work: the loop never sleeps
  }, 10_000);
  return { loop, state };
}

Deno.test("polling loop: a start during a pending stop waits for its batch; one batch at a time", async () => {
  const { loop, state } = heldLoop();
  loop.start();
  await waitUntil(() => state.begun === 1, "the first batch");
  let stopped = false;
  const stopping = loop.stop().then(() => stopped = true);
  loop.start();
  loop.start(); // idempotent
  await new Promise((r) => setTimeout(r, 50));
  assert.equal(state.begun, 1, "no batch of the new run while the old one is in flight");
  assert.equal(stopped, false);
  state.release();
  await stopping;
  await waitUntil(() => state.begun === 2, "the new run's first batch");
  assert.equal(state.most, 1, "two batches ran at once");
  const second = loop.stop();
  state.release();
  await second;
  assert.equal(state.begun, 2, "the loop ended at the second stop");
});

Deno.test("polling loop: stop, start, stop in a row ends with nothing running", async () => {
  const { loop, state } = heldLoop();
  loop.start();
  await waitUntil(() => state.begun === 1, "the first batch");
  const first = loop.stop();
  loop.start();
  const second = loop.stop();
  state.release();
  await Promise.all([first, second]);
  assert.equal(state.begun, 1, "the start between the stops never ran a batch");
  assert.equal(state.running, 0);
});

Deno.test("polling loop: a batch that throws (even a non-Error) is logged and the loop goes on", async () => {
  let calls = 0;
  const loop = new PollingLoop("test", () => {
    calls++;
    if (calls === 1) return Promise.reject("not an Error");
    if (calls === 2) throw new Error("an Error");
    return Promise.resolve(0); // nothing to do: the loop sleeps its 10 ms
  }, 10);
  assert.equal(loop.running, false);
  loop.start();
  assert.equal(loop.running, true);
  await waitUntil(() => calls >= 3, "a batch after the failures");
  await loop.stop();
  assert.equal(loop.running, false);
});
