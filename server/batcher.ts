/**
 * Group commit for one statement that many requests make at once: a request that finds fewer
 * than `concurrency` runs in flight starts one at once with itself alone; otherwise it waits, and
 * the next run takes every waiting request (at most `maxBatch`), so N concurrent requests share
 * one statement, one round trip and one commit. Nothing waits for a timer: a lone request runs as
 * it would without the batcher, and batches form only while the database is busy.
 *
 * A run runs within what its first item's `bind` captured (that request's trace context, so its
 * query span belongs to a request that waits for it), and answers one result per item, in order.
 * A failed run fails its items, with these exceptions:
 * - `retryAlone`: an error one item may have caused by itself (a constraint, a conflict). Nothing
 *   of the statement was written, so each item of a failed run of several runs again alone, in
 *   turn and within `concurrency`, and fails only itself.
 * - `failsWaiting`: an error every waiting item would meet too (the database unreachable or timed
 *   out): the waiting items fail with it at once, rather than each after a run of its own.
 * An item waits for a run `maxWaitMs` at most from its submission (a retry too), then fails with
 * `waitExpired()`.
 */
export interface BatcherOptions {
  /** Runs in flight at most. */
  concurrency: number;
  /** Items in one run at most. */
  maxBatch: number;
  /** True for an error one item of a run may have caused alone. */
  retryAlone?: (err: unknown) => boolean;
  /** True for an error that every waiting item would meet too. */
  failsWaiting?: (err: unknown) => boolean;
  /** How long an item may wait for a run, and the error it then fails with. */
  maxWaitMs?: number;
  waitExpired?: () => unknown;
  /** Called as an item is submitted: what a run that item leads should run within. */
  bind?: () => Within;
}

/** Runs a function within something captured earlier (a trace context). */
export type Within = <T>(fn: () => T) => T;

interface Waiting<I, O> {
  item: I;
  within?: Within;
  resolve: (value: O) => void;
  reject: (err: unknown) => void;
  /** Runs alone (a retry after its batch failed). */
  alone?: boolean;
  /** When it stops waiting (performance.now(): its submission + `maxWaitMs`). */
  deadline?: number;
  timer?: ReturnType<typeof setTimeout>;
}

/** Batches items for `run`, which answers one result per item in the order given. */
export class Batcher<I, O> {
  /** Retries (alone) first, then the items in the order they came. */
  #waiting: Waiting<I, O>[] = [];
  #running = 0;

  constructor(
    private readonly run: (items: I[]) => Promise<O[]>,
    private readonly options: BatcherOptions,
  ) {
    if (!(options.concurrency >= 1 && options.maxBatch >= 1)) {
      throw new RangeError("a batcher needs concurrency and maxBatch of at least 1");
    }
  }

  /** Runs in flight now. */
  get running(): number {
    return this.#running;
  }

  /** Items waiting for a run now. */
  get waiting(): number {
    return this.#waiting.length;
  }

  /** The result of `item`, from the run that carried it. */
  submit(item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      const w: Waiting<I, O> = { item, resolve, reject, within: this.options.bind?.() };
      if (this.options.maxWaitMs !== undefined) {
        w.deadline = performance.now() + this.options.maxWaitMs;
      }
      this.#waiting.push(w);
      if (this.#running < this.options.concurrency) this.#next();
      else if (w.deadline !== undefined) this.#expireAt(w);
    });
  }

  /** Fails `w` if it still waits at its deadline. */
  #expireAt(w: Waiting<I, O>): void {
    w.timer = setTimeout(() => {
      const at = this.#waiting.indexOf(w);
      if (at < 0) return;
      this.#waiting.splice(at, 1);
      w.reject(this.options.waitExpired?.() ?? new Error("waited too long for a run"));
    }, Math.max(0, w.deadline! - performance.now()));
  }

  #next(): void {
    const first = this.#waiting[0];
    if (!first) return;
    const batch = this.#waiting.splice(0, first.alone ? 1 : this.options.maxBatch);
    for (const w of batch) clearTimeout(w.timer);
    this.#running++;
    this.#runOf(batch).then(
      (answers) => {
        this.#running--;
        batch.forEach((w, i) => w.resolve(answers[i]));
        this.#next();
      },
      (err) => {
        this.#running--;
        if (this.options.failsWaiting?.(err)) {
          const waiting = this.#waiting.splice(0);
          for (const w of waiting) clearTimeout(w.timer);
          for (const w of [...batch, ...waiting]) w.reject(err);
        } else if (batch.length > 1 && this.options.retryAlone?.(err)) {
          // After the retries already queued, before the items that came in the meantime; each
          // keeps the deadline it had.
          const retries = batch.map((w) => ({ ...w, alone: true, timer: undefined }));
          const at = this.#waiting.findIndex((w) => !w.alone);
          this.#waiting.splice(at < 0 ? this.#waiting.length : at, 0, ...retries);
          for (const w of retries) if (w.deadline !== undefined) this.#expireAt(w);
        } else {
          for (const w of batch) w.reject(err);
        }
        // A slot is free: the next run, and as many more as the retries can use.
        while (this.#running < this.options.concurrency && this.#waiting.length > 0) {
          this.#next();
        }
      },
    );
  }

  /** One run of `batch`, within its first item's `bind`; its answers, checked for their count. */
  async #runOf(batch: Waiting<I, O>[]): Promise<O[]> {
    const items = batch.map((w) => w.item);
    const within = batch[0].within;
    const answers = await (within ? within(() => this.run(items)) : this.run(items));
    if (answers.length !== batch.length) {
      throw new Error(`a batch of ${batch.length} got ${answers.length} results`);
    }
    return answers;
  }
}
