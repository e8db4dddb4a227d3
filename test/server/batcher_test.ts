import assert from "node:assert/strict";
import { Batcher } from "../../server/batcher.ts";

/** A run that records each batch and answers when the test says so. */
function controlled() {
  const batches: number[][] = [];
  const pending: { resolve: (v: string[]) => void; reject: (e: unknown) => void }[] = [];
  const run = (items: number[]) => {
    batches.push(items);
    return new Promise<string[]>((resolve, reject) => pending.push({ resolve, reject }));
  };
  const answer = (i: number) => pending[i].resolve(batches[i].map((n) => `#${n}`));
  return { batches, pending, run, answer };
}

const tick = () => new Promise((r) => setTimeout(r, 0));

Deno.test("batcher: a lone item runs at once, alone", async () => {
  const c = controlled();
  const batcher = new Batcher(c.run, { concurrency: 2, maxBatch: 8 });
  const one = batcher.submit(1);
  assert.deepEqual(c.batches, [[1]], "started without waiting for a timer or a tick");
  c.answer(0);
  assert.equal(await one, "#1");
  assert.equal(batcher.running, 0);
});

Deno.test("batcher: items that come while runs are in flight share the next run", async () => {
  const c = controlled();
  const batcher = new Batcher(c.run, { concurrency: 2, maxBatch: 8 });
  const results = [1, 2, 3, 4, 5, 6].map((n) => batcher.submit(n));
  // Two runs in flight with one item each; the other four wait for one of them to finish.
  assert.deepEqual(c.batches, [[1], [2]]);
  assert.equal(batcher.waiting, 4);
  c.answer(1);
  await tick();
  assert.deepEqual(c.batches, [[1], [2], [3, 4, 5, 6]]);
  c.answer(0);
  c.answer(2);
  assert.deepEqual(await Promise.all(results), ["#1", "#2", "#3", "#4", "#5", "#6"]);
  assert.equal(c.batches.length, 3, "no run for an empty queue");
  assert.equal(batcher.running, 0);
});

Deno.test("batcher: a run carries at most maxBatch items", async () => {
  const c = controlled();
  const batcher = new Batcher(c.run, { concurrency: 1, maxBatch: 3 });
  const results = [1, 2, 3, 4, 5, 6, 7, 8].map((n) => batcher.submit(n));
  for (let i = 0; i < 4; i++) {
    await tick();
    c.answer(i);
  }
  assert.deepEqual(await Promise.all(results), [1, 2, 3, 4, 5, 6, 7, 8].map((n) => `#${n}`));
  assert.deepEqual(c.batches, [[1], [2, 3, 4], [5, 6, 7], [8]]);
});

Deno.test("batcher: a failed run fails its own items; the waiting ones run next", async () => {
  const c = controlled();
  const batcher = new Batcher(c.run, { concurrency: 1, maxBatch: 8 });
  const first = batcher.submit(1);
  const second = batcher.submit(2);
  c.pending[0].reject(new Error("deadlock detected"));
  await assert.rejects(first, /deadlock detected/);
  await tick();
  assert.deepEqual(c.batches, [[1], [2]]);
  c.answer(1);
  assert.equal(await second, "#2");
});

Deno.test("batcher: an error every waiting item would meet fails them at once", async () => {
  class Unavailable extends Error {}
  const c = controlled();
  const batcher = new Batcher(c.run, {
    concurrency: 1,
    maxBatch: 8,
    failsWaiting: (err) => err instanceof Unavailable,
  });
  const items = [1, 2, 3].map((n) => batcher.submit(n));
  c.pending[0].reject(new Unavailable("no database connection within 50 ms"));
  for (const item of items) await assert.rejects(item, Unavailable);
  assert.deepEqual(c.batches, [[1]], "the waiting items did not run");
  assert.equal(batcher.waiting, 0);
  // The batcher still works afterwards.
  const later = batcher.submit(4);
  assert.deepEqual(c.batches[1], [4]);
  c.answer(1);
  assert.equal(await later, "#4");
});

Deno.test("batcher: a run that throws or answers the wrong count fails its items", async () => {
  const throwing = new Batcher<number, string>(() => {
    throw new Error("bad statement");
  }, { concurrency: 1, maxBatch: 8 });
  await assert.rejects(throwing.submit(1), /bad statement/);
  assert.equal(throwing.running, 0);
  const short = new Batcher<number, string>(
    (items) => Promise.resolve(items.slice(1).map(String)),
    { concurrency: 1, maxBatch: 8 },
  );
  await assert.rejects(short.submit(1), /a batch of 1 got 0 results/);
  assert.throws(() => new Batcher(() => Promise.resolve([]), { concurrency: 0, maxBatch: 1 }));
});

Deno.test("batcher: a run runs within what its first item's bind captured", async () => {
  let current = "none";
  const seen: string[] = [];
  const c = controlled();
  let n = 0;
  const batcher = new Batcher<number, string>((items) => {
    seen.push(current);
    return c.run(items);
  }, {
    concurrency: 1,
    maxBatch: 8,
    bind: () => {
      const captured = `request ${++n}`;
      return (fn) => {
        const before = current;
        current = captured;
        try {
          return fn();
        } finally {
          current = before;
        }
      };
    },
  });
  const results = [1, 2, 3].map((i) => batcher.submit(i));
  c.answer(0);
  await tick();
  c.answer(1);
  await Promise.all(results);
  // The second run carries items 2 and 3: it runs within item 2's, not item 1's (whose run
  // led to it).
  assert.deepEqual(seen, ["request 1", "request 2"]);
});

Deno.test("batcher: a failed run of several runs each item again alone", async () => {
  const runs: number[][] = [];
  let release!: () => void;
  const first = new Promise<void>((r) => release = r);
  const batcher = new Batcher<number, string>(async (items) => {
    runs.push(items);
    if (runs.length === 1) await first; // holds the only slot while 2, 3 and 4 gather
    // One statement: an item's error fails the whole run, and nothing of it is written.
    if (items.includes(3)) throw new Error("insert or update violates a foreign key");
    return items.map((n) => `#${n}`);
  }, { concurrency: 1, maxBatch: 8, retryAlone: (e) => /foreign key/.test(String(e)) });
  const results = [1, 2, 3, 4].map((n) => batcher.submit(n).catch((e: Error) => e.message));
  release();
  assert.deepEqual(await Promise.all(results), [
    "#1",
    "#2",
    "insert or update violates a foreign key",
    "#4",
  ]);
  assert.deepEqual(runs, [[1], [2, 3, 4], [2], [3], [4]]);
});

Deno.test("batcher: an error no single item causes fails the whole run, retried by none", async () => {
  const runs: number[][] = [];
  const batcher = new Batcher<number, string>((items) => {
    runs.push(items);
    return Promise.reject(new Error("cannot execute INSERT in a read-only transaction"));
  }, { concurrency: 1, maxBatch: 8, retryAlone: (e) => /foreign key/.test(String(e)) });
  const results = [1, 2, 3].map((n) => batcher.submit(n).catch((e: Error) => e.message));
  assert.deepEqual(
    await Promise.all(results),
    Array(3).fill(
      "cannot execute INSERT in a read-only transaction",
    ),
  );
  assert.deepEqual(runs, [[1], [2, 3]]);
});

Deno.test("batcher: retries alone stay within the concurrency", async () => {
  let inFlight = 0;
  let peak = 0;
  const batcher = new Batcher<number, number>(async (items) => {
    peak = Math.max(peak, ++inFlight);
    await tick();
    inFlight--;
    if (items.length > 1) throw new Error("deadlock detected");
    return items;
  }, { concurrency: 2, maxBatch: 64, retryAlone: () => true });
  const results = await Promise.all(Array.from({ length: 200 }, (_, i) => batcher.submit(i)));
  assert.deepEqual(results, Array.from({ length: 200 }, (_, i) => i));
  assert.equal(peak, 2);
});

Deno.test("batcher: an item waits maxWaitMs at most, then fails and never runs", async () => {
  const c = controlled();
  const batcher = new Batcher(c.run, {
    concurrency: 1,
    maxBatch: 8,
    maxWaitMs: 30,
    waitExpired: () => new Error("no run within 30 ms"),
  });
  const first = batcher.submit(1); // runs at once, and is never answered before the wait ends
  const started = performance.now();
  await assert.rejects(batcher.submit(2), /no run within 30 ms/);
  assert.ok(performance.now() - started >= 25);
  assert.equal(batcher.waiting, 0);
  c.answer(0);
  assert.equal(await first, "#1");
  await tick();
  assert.deepEqual(c.batches, [[1]], "the expired item did not run");
});

Deno.test("batcher: retries keep their order and their deadline", async () => {
  const c = controlled();
  const batcher = new Batcher(c.run, {
    concurrency: 2,
    maxBatch: 8,
    maxWaitMs: 60,
    waitExpired: () => new Error("no run within 60 ms"),
    retryAlone: () => true,
  });
  const results = [1, 2, 3, 4, 5, 6, 7].map((n) =>
    batcher.submit(n).catch((e: Error) => e.message)
  );
  // Runs [1] and [2] in flight; 3-7 wait. [1] answers: [3..7] runs; [2] fails alone (no retry).
  c.answer(0);
  await tick();
  c.pending[1].reject(new Error("deadlock detected"));
  await tick();
  assert.deepEqual(c.batches, [[1], [2], [3, 4, 5, 6, 7]]);
  c.pending[2].reject(new Error("deadlock detected"));
  await tick();
  // Retried one by one, in order, within the two slots: 3 and 4 now.
  assert.deepEqual(c.batches.slice(3), [[3], [4]]);
  c.answer(3);
  await tick();
  assert.deepEqual(c.batches.slice(5), [[5]]);
  // 4 and 5 are never answered: 6 and 7 wait past their deadline and fail.
  assert.deepEqual(await Promise.all(results.slice(5)), [
    "no run within 60 ms",
    "no run within 60 ms",
  ]);
  assert.deepEqual(await Promise.all(results.slice(0, 3)), ["#1", "deadlock detected", "#3"]);
});
