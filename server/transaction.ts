/**
 * Every write goes through here: `inTransaction` (BEGIN … COMMIT) or `inStatement` (one
 * statement that commits on its own, such as the launch's single call). The work says what it
 * did on `after` (callback events written, mail queued, apps or API clients changed); what that
 * means for this process (wake its delivery or mail worker, forget cached apps or clients) runs
 * only once the write has committed, and never when it failed. No caller runs those effects by
 * hand.
 */
import type { Tx } from "../db/mod.ts";
import type { Deps } from "./deps.ts";

/** What a write did that this process must act on once it commits. */
export class AfterCommit {
  #events = 0;
  #apps = false;
  #clients = new Set<number>();
  #mail = false;

  /** `count` callback events were written: the delivery worker is woken (when count > 0). */
  callbackEventsWritten(count: number): void {
    this.#events += count;
  }

  /** An app changed (created, updated, rotated, removed): the app cache is emptied. */
  appsChanged(): void {
    this.#apps = true;
  }

  /** An API client's scopes or secret changed, or it was removed: its cached tokens go. */
  clientChanged(clientDbId: number): void {
    this.#clients.add(clientDbId);
  }

  /** A mail was queued in the outbox: the mail worker is woken. */
  mailQueued(): void {
    this.#mail = true;
  }

  /** Runs the effects (after a commit). */
  run(deps: Deps): void {
    if (this.#events > 0) deps.deliveries.wake();
    if (this.#mail) deps.mail?.wake();
    if (this.#apps) deps.apps.clear();
    for (const id of this.#clients) deps.auth.forgetClient(id);
  }
}

/** A write in progress: the handle its statements use and what it did. */
export interface Write {
  readonly tx: Tx;
  readonly after: AfterCommit;
}

/** Runs `work` in one transaction; its effects run after COMMIT (none on a rollback). */
export async function inTransaction<T>(
  deps: Deps,
  work: (w: Write) => Promise<T>,
): Promise<T> {
  const after = new AfterCommit();
  // The driver's begin() types its result as the work's with promises unwrapped: the same T.
  const result = await deps.sql.begin((tx) => work({ tx, after })) as T;
  after.run(deps);
  return result;
}

/**
 * Runs `work`, which sends ONE statement on the pool (it commits on its own: no BEGIN or COMMIT
 * round trips); its effects run once it has returned, none when it threw.
 */
export async function inStatement<T>(
  deps: Deps,
  work: (w: Write) => Promise<T>,
): Promise<T> {
  const after = new AfterCommit();
  const result = await work({ tx: deps.sql, after });
  after.run(deps);
  return result;
}
