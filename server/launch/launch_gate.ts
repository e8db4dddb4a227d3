/**
 * How many launches a process works on at once. A launch spends most of its time waiting for a
 * pool connection when launches come faster than PostgreSQL takes them, and everything it has
 * built by then (its decoded payload, the input of its one call) waits with it: at 64 launches
 * in flight the young-generation collections copied that state again and again, a fifth of the
 * server's CPU per launch (docs/performance.md#the-launch-gate). Past the gate's capacity
 * (LAUNCHES_PER_CONNECTION per pool connection) a launch waits before it has built anything, in
 * order of arrival.
 *
 * A wait at the gate is bounded like a wait for a connection (DATABASE_ACQUIRE_TIMEOUT_MS) and
 * fails like it (DatabaseUnavailableError: 503 `database_unavailable`); and when a launch in the
 * gate found the database unavailable, every launch waiting is answered so at once, so that
 * during an outage no launch waits longer than it would have in the pool's queue.
 */
import { DatabaseUnavailableError } from "../../db/errors.ts";

/**
 * Launches worked on at once per pool connection: one in PostgreSQL, the others being read or
 * queued for a connection. Against no gate, at 3, 6 pairs of runs of 7 took less server CPU; at
 * 2, it took more: the pool went short (tools/bench/results/2026-11-30-launch-gate.md).
 */
export const LAUNCHES_PER_CONNECTION = 3;

interface Waiter {
  admit: () => void;
  refuse: (err: DatabaseUnavailableError) => void;
}

/** A counting gate whose queue is bounded in time and emptied when the database is gone. */
export class LaunchGate {
  #active = 0;
  #waiting: Waiter[] = [];

  constructor(readonly capacity: number, private readonly timeoutMs: number) {}

  /** The gate of a process whose pool has `poolSize` connections. */
  static forPool(poolSize: number, timeoutMs: number): LaunchGate {
    return new LaunchGate(poolSize * LAUNCHES_PER_CONNECTION, timeoutMs);
  }

  /** Launches in the gate, and waiting at it (metrics, tests). */
  get load(): { active: number; waiting: number } {
    return { active: this.#active, waiting: this.#waiting.length };
  }

  /**
   * Resolves once the caller may go on; rejects with DatabaseUnavailableError when no place came
   * free within the timeout or the database was found unavailable meanwhile. Every enter that
   * resolved is paired with one `leave()`.
   */
  enter(): Promise<void> {
    if (this.#active < this.capacity && this.#waiting.length === 0) {
      this.#active++;
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        admit: () => {
          clearTimeout(timer);
          resolve();
        },
        refuse: (err) => {
          clearTimeout(timer);
          reject(err);
        },
      };
      const timer = setTimeout(() => {
        this.#waiting.splice(this.#waiting.indexOf(waiter), 1);
        waiter.refuse(this.#unavailable("no place came free"));
      }, this.timeoutMs);
      this.#waiting.push(waiter);
    });
  }

  /**
   * Gives the place to the launch that waited longest, or frees it. `databaseUnavailable`: the
   * leaving launch found the database unavailable, so every launch waiting is refused now.
   */
  leave(databaseUnavailable = false): void {
    if (databaseUnavailable) {
      const refused = this.#waiting.splice(0);
      for (const w of refused) w.refuse(this.#unavailable("the database is unavailable"));
    }
    const next = this.#waiting.shift();
    if (next) next.admit();
    else this.#active--;
  }

  #unavailable(why: string): DatabaseUnavailableError {
    return new DatabaseUnavailableError(
      `No database connection within ${this.timeoutMs} ms (a launch waiting to start: ${why})`,
    );
  }
}
