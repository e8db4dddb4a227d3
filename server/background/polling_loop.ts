/**
 * The loop of a background worker (callback deliveries, outgoing mail): run a batch; when it found
 * nothing, sleep until woken (this process queued work) or `pollMs` passes (another process did).
 */
import { log } from "../log.ts";

/**
 * A started loop. A `start()` while a `stop()` is still waiting for its batch begins a new run
 * once that batch is done: the two never overlap, and the pending stop still resolves.
 */
export class PollingLoop {
  /** The current run's token: a run goes on while it is the current one. */
  #current: object | null = null;
  #loop: Promise<void> = Promise.resolve();
  #wake: (() => void) | null = null;
  #woken = false;

  /** `batch` does one batch of work and answers how many items it handled. */
  constructor(
    private readonly name: string,
    private readonly batch: () => Promise<number>,
    private readonly pollMs: number,
  ) {}

  /** Starts the loop (idempotent); after a stop still in progress, once its batch is done. */
  start(): void {
    if (this.#current) return;
    const run = {};
    this.#current = run;
    // #run catches its batches' errors; were one to escape, later runs must still start.
    this.#loop = this.#loop.catch(() => {}).then(() => this.#run(run));
  }

  /** True from a start until the next stop (a run may still be finishing after that). */
  get running(): boolean {
    return this.#current !== null;
  }

  /** Stops; resolves when the batch in flight is done. */
  async stop(): Promise<void> {
    this.#current = null;
    this.wake();
    await this.#loop;
  }

  /** Ends the current sleep (or skips the next one). */
  wake(): void {
    this.#woken = true;
    this.#wake?.();
  }

  async #sleep(): Promise<void> {
    if (this.#woken) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, this.pollMs);
      Deno.unrefTimer(timer);
      this.#wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
    this.#wake = null;
  }

  async #run(run: object): Promise<void> {
    while (this.#current === run) {
      this.#woken = false;
      let handled = 0;
      try {
        handled = await this.batch();
      } catch (err) {
        log.warn(`${this.name}: batch failed`, {
          error: err instanceof Error ? err.message : String(err),
        });
      }
      if (handled === 0 && this.#current === run) await this.#sleep();
    }
  }
}
