/**
 * The driver's connection and query queues (vendor/postgres/src/queue.js, patched). Unpatched,
 * `shift()` left an emptied slot behind unless the queue ran empty, and `remove()` scanned from
 * the start: a pool whose idle queue never empties (any pool not saturated) grew that queue by one
 * slot per query, forever, and each query scanned it all (54,000 slots after 10 s of token
 * requests; 8 µs of server CPU per request, growing). See vendor/postgres/README.md.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import Queue from "../../vendor/postgres/src/queue.js";

interface DriverQueue<T> {
  readonly length: number;
  push(x: T): T;
  shift(): T | undefined;
  remove(x: T): T | null;
}

const makeQueue = Queue as unknown as <T>(initial?: T[]) => DriverQueue<T>;

/**
 * An array that counts the slots `indexOf` looks at and keeps its longest length. The queue copies
 * its initial array with `slice()`, which keeps the subclass (Array species), so the figures cover
 * the queue's own array, and a compaction by `slice()` keeps counting.
 */
class CountingArray<T> extends Array<T> {
  static scanned = 0;
  static longest = 0;
  override indexOf(x: T, from = 0): number {
    CountingArray.scanned += Math.max(0, this.length - from);
    return super.indexOf(x, from);
  }
  override push(...items: T[]): number {
    const n = super.push(...items);
    CountingArray.longest = Math.max(CountingArray.longest, n);
    return n;
  }
}

Deno.test("driver queue: an idle pool's queue stays as small as its connections", () => {
  // The pool's pattern (postgres/src/index.js): a query takes the first idle connection
  // (open.shift()), move() takes it out of its queue (open.remove(c)), and it comes back idle
  // (open.push(c)), while another connection stays idle, so the queue never runs empty.
  const open = makeQueue<object>(CountingArray.from<object>([]));
  const connections = [{}, {}, {}];
  for (const c of connections) open.push(c);
  CountingArray.scanned = 0;
  CountingArray.longest = 0;
  const cycles = 100_000;
  for (let i = 0; i < cycles; i++) {
    const c = open.shift()!;
    assert.equal(open.remove(c), null, "a shifted connection is no longer in the queue");
    open.push(c);
  }
  assert.equal(open.length, 3);
  // Unpatched: 50,002 slots a call on average (every slot ever emptied, every time). Patched:
  // the 2 connections still idle. At least 1: the count still covers the queue's array.
  const perRemove = CountingArray.scanned / cycles;
  assert.ok(
    perRemove >= 1 && perRemove <= 3,
    `remove() looked at ${perRemove} slots on average, not 1 to 3`,
  );
  // Unpatched: 100,003 slots, one more per query. Patched: emptied slots are dropped once they
  // are 64 or more and half the array.
  assert.ok(CountingArray.longest <= 130, `the array grew to ${CountingArray.longest} slots`);
});

Deno.test("driver queue: first in, first out, with removal anywhere, as a plain array", () => {
  type Op = { op: "push" } | { op: "shift" } | { op: "remove"; at: number };
  const op: fc.Arbitrary<Op> = fc.oneof(
    { arbitrary: fc.constant({ op: "push" as const }), weight: 5 },
    { arbitrary: fc.constant({ op: "shift" as const }), weight: 4 },
    { arbitrary: fc.nat(200).map((at) => ({ op: "remove" as const, at })), weight: 2 },
  );
  fc.assert(
    fc.property(fc.array(op, { minLength: 100, maxLength: 600, size: "max" }), (ops) => {
      const queue = makeQueue<number>();
      const model: number[] = [];
      let next = 0;
      for (const step of ops) {
        if (step.op === "push") {
          queue.push(next);
          model.push(next++);
        } else if (step.op === "shift") {
          // The driver shifts only a queue it has checked is not empty.
          if (model.length === 0) continue;
          assert.equal(queue.shift(), model.shift());
        } else {
          // Sometimes a value that is in the queue, sometimes one that left or never came.
          const x = step.at % (next + 1);
          const at = model.indexOf(x);
          if (at !== -1) model.splice(at, 1);
          assert.equal(queue.remove(x), at === -1 ? null : x);
        }
        assert.equal(queue.length, model.length);
      }
      // What is left comes out in order.
      while (model.length) assert.equal(queue.shift(), model.shift());
    }),
    { numRuns: 300 },
  );
});
