/**
 * The loop of a background worker (callback deliveries, outgoing mail): run a batch; when it found
 * nothing, sleep until woken (this process queued work) or `pollMs` passes (another process did).
 */
import { log } from "../log.ts";

/** A started loop. */
export class PollingLoop {
  #running = false;
  #loop: Promise<void> | null = null;
  #wake: (() => void) | null = null;
  #woken = false;

  /** `batch` does one batch of work and answers how many items it handled. */
  constructor(
    private readonly name: string,
    private readonly batch: () => Promise<number>,
    private readonly pollMs: number,
  ) {}

  /** Starts the loop (idempotent). */
  start(): void {
    if (this.#running) return;
    this.#running = true;
    this.#loop = this.#run();
  }

  /** Stops; resolves when the batch in flight is done. */
  async stop(): Promise<void> {
    this.#running = false;
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

  async #run(): Promise<void> {
    while (this.#running) {
      this.#woken = false;
      let handled = 0;
      try {
        handled = await this.batch();
      } catch (err) {
        log.warn(`${this.name}: batch failed`, { error: (err as Error).message });
      }
      if (handled === 0 && this.#running) await this.#sleep();
    }
  }
}
