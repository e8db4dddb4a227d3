/**
 * Group commit for one statement that many requests make at once: a request that finds fewer
 * than `concurrency` runs in flight starts one at once with itself alone; otherwise it waits, and
 * the next run takes every waiting request (at most `maxBatch`), so N concurrent requests share
 * one statement, one round trip and one commit. Nothing waits for a timer: a lone request runs as
 * it would without the batcher, and batches form only while the database is busy.
 *
 * A run runs within what its first item's `bind` captured (that request's trace context, so its
 * query span belongs to a request that waits for it), and answers one result per item, in order.
 * When a run of several items fails, nothing of it was written (one statement), and each item is
 * run again alone, so one item's error fails that item only. An error that is `failsWaiting`
 * (the database is unreachable or timed out: retrying would only add load) fails the run's items
 * and every waiting one at once instead.
 */
export interface BatcherOptions {
  /** Runs in flight at most. */
  concurrency: number;
  /** Items in one run at most. */
  maxBatch: number;
  /** True for an error that every waiting item would meet too. */
  failsWaiting?: (err: unknown) => boolean;
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
}

/** Batches items for `run`, which answers one result per item in the order given. */
export class Batcher<I, O> {
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
      this.#waiting.push({ item, resolve, reject, within: this.options.bind?.() });
      if (this.#running < this.options.concurrency) this.#next();
    });
  }

  #next(): void {
    const batch = this.#waiting.splice(0, this.options.maxBatch);
    if (batch.length === 0) return;
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
          for (const w of [...batch, ...this.#waiting.splice(0)]) w.reject(err);
        } else if (batch.length === 1) {
          batch[0].reject(err);
        } else {
          for (const w of batch) this.#runOf([w]).then(([answer]) => w.resolve(answer), w.reject);
        }
        this.#next();
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
