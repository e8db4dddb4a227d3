/**
 * The request signals of callback delivery (server/callbacks/timeout.ts): a timeout that can be
 * cleared, the worker's interrupt, and each request's time cut to the attempt's deadline.
 */
import assert from "node:assert/strict";
import { requestSignal, requestTimeoutMs } from "../../../server/callbacks/timeout.ts";

/** Resolves with the reason once `signal` aborts. */
function aborted(signal: AbortSignal): Promise<unknown> {
  return new Promise((resolve) =>
    signal.addEventListener("abort", () => resolve(signal.reason), { once: true })
  );
}

Deno.test("request signal: aborts with a TimeoutError after its time", async () => {
  const { signal, clear } = requestSignal(10);
  const reason = await aborted(signal);
  clear();
  assert.ok(reason instanceof DOMException);
  assert.equal(reason.name, "TimeoutError");
  assert.match(reason.message, /timed out after 10 ms/);
});

Deno.test("request signal: cleared, it never aborts", async () => {
  const { signal, clear } = requestSignal(10);
  clear();
  await new Promise((r) => setTimeout(r, 40));
  assert.equal(signal.aborted, false);
});

Deno.test("request signal: the interrupt aborts it first, with the interrupt's reason", () => {
  const interrupt = new AbortController();
  const { signal, clear } = requestSignal(60_000, interrupt.signal);
  const why = new Error("shutting down");
  interrupt.abort(why);
  assert.equal(signal.aborted, true);
  assert.equal(signal.reason, why);
  clear();
});

Deno.test("request signal: an interrupt that already fired aborts it at once", () => {
  const interrupt = new AbortController();
  interrupt.abort(new Error("stopped"));
  const { signal, clear } = requestSignal(60_000, interrupt.signal);
  assert.equal(signal.aborted, true);
  assert.equal((signal.reason as Error).message, "stopped");
  clear();
});

Deno.test("request signal: cleared, it no longer listens to the interrupt", () => {
  const interrupt = new AbortController();
  const { signal, clear } = requestSignal(60_000, interrupt.signal);
  clear();
  interrupt.abort(new Error("later"));
  assert.equal(signal.aborted, false, "a finished request is not aborted by a later shutdown");
});

Deno.test("request timeout: its own time, cut to what is left of the deadline", () => {
  // A deadline at 3,000 on the performance clock, requests of 1,000 ms.
  assert.equal(requestTimeoutMs(1_000, 3_000, 0), 1_000, "early: the request's own time");
  assert.equal(requestTimeoutMs(1_000, 3_000, 2_500), 500, "late: what is left of the deadline");
  assert.equal(requestTimeoutMs(1_000, 3_000, 3_200), 0, "past the deadline: none at all");
});

Deno.test("request signal: with no time left it is aborted before the request starts", () => {
  for (const ms of [0, -5, 0.2]) {
    const { signal, clear } = requestSignal(ms);
    assert.equal(signal.aborted, true, `${ms} ms`);
    assert.equal((signal.reason as DOMException).name, "TimeoutError");
    clear();
  }
});
