/**
 * The delivery worker every serving process runs (`deno task start` and each `deno task serve`
 * worker). It claims due events in batches with FOR UPDATE SKIP LOCKED, so any number of
 * processes share the outbox without two of them taking the same event; a claim is a lease, so an
 * event whose process died mid-delivery is taken again when its lease runs out. Between batches it
 * sleeps until its service commits a write that emitted an event (server/transaction.ts wakes
 * it) or CALLBACK_POLL_MS passes (events emitted by other processes are found by the poll).
 * While there is a backlog (a claim came back full), a second batch is claimed and delivered
 * alongside the first, so deliveries go on while a batch is being claimed or recorded and while its
 * slowest attempt finishes; order per session holds as between processes (the claim skips an event
 * while an earlier one of its session is held). In steady use batches are small and only one is out.
 * At shutdown it stops claiming, gives the attempts in flight until a deadline, then abandons the
 * rest and releases their events (due at once, so another process takes them within its poll).
 */
import {
  claimDueEvents,
  finishAttempts,
  insertClaimedPing,
} from "../../db/queries/callback_events.ts";
import type { ClaimedEvent } from "../../db/queries/callback_events.ts";
import { log } from "../log.ts";
import { PollingLoop } from "../background/polling_loop.ts";
import { CLAIM_BATCH } from "./contract.ts";
import {
  type Delivered,
  deliverEvent,
  type DeliveryContext,
  deliveryResult,
  INTERRUPTED,
} from "./delivery.ts";
import { deliveries, deliveryDuration } from "../observability/instruments.ts";

/** How long a claim lasts: the attempt's deadline (3 × timeout) and a margin. */
export function leaseMs(timeoutMs: number): number {
  return timeoutMs * 3 + 2_000;
}

/**
 * Lanes beside the loop during a backlog, by default. One more drained the bench's 40,000 events
 * 23 to 44 % faster at the same CPU per event; two more gained nothing over one, three made claims
 * contend (tools/bench/results/2026-11-29-drain-lanes.md). Claims contend across processes as
 * within one, so the processes of `deno task serve` (one per core, overlapping each other's
 * batches already) run none (server/main.ts).
 */
export const EXTRA_BATCHES = 1;

/** Delivers the outbox. */
export class DeliveryWorker {
  #loop: PollingLoop;
  #batch: number;
  #extraBatches: number;
  /** The extra batches in flight (a backlog's), awaited at stop. */
  #extra = new Set<Promise<void>>();
  /** The current run's token (null when stopped): a lane goes on while its run is current. */
  #run: object | null = null;
  /**
   * Aborted when a stop's grace runs out: attempts in flight are abandoned and released. Each run
   * has its own, so a stop's grace never ends the attempts of a start that came after it.
   */
  #interrupt = new AbortController();

  constructor(
    private readonly ctx: DeliveryContext,
    options: { pollMs: number; batch?: number; extraBatches?: number },
  ) {
    this.#batch = options.batch ?? CLAIM_BATCH;
    this.#extraBatches = options.extraBatches ?? EXTRA_BATCHES;
    this.#loop = new PollingLoop("callback delivery", () => this.runOnce(), options.pollMs);
  }

  /**
   * Starts the loop (idempotent). After a stop still in progress, the new run's loop begins once
   * the stopping batch is done (a lane that batch opens meanwhile belongs to the new run); the stop
   * still resolves, and its grace applies to its own attempts only.
   */
  start(): void {
    if (this.#run) return;
    this.#run = {};
    this.#interrupt = new AbortController();
    this.#loop.start();
  }

  /**
   * Stops claiming; resolves when the batch in flight is recorded. Attempts still running after
   * `graceMs` are abandoned and their events released (pending, due now).
   */
  async stop(graceMs = Infinity): Promise<void> {
    this.#run = null;
    const interrupt = this.#interrupt;
    const stopped = Promise.all([this.#loop.stop(), ...this.#extra]);
    const timer = Number.isFinite(graceMs)
      ? setTimeout(() => interrupt.abort(), Math.max(0, graceMs))
      : undefined;
    try {
      await stopped;
    } finally {
      clearTimeout(timer);
    }
  }

  /** Ends the current sleep. */
  wake(): void {
    this.#loop.wake();
  }

  /**
   * Claims one batch and delivers it; returns how many events it claimed. A full batch means a
   * backlog: another lane claims batches alongside while it lasts (up to EXTRA_BATCHES more).
   */
  async runOnce(): Promise<number> {
    // The run's interrupt as the batch begins: a stop meanwhile ends this batch's attempts.
    const interrupt = this.#interrupt.signal;
    const events = await claimDueEvents(
      this.ctx.sql,
      this.#batch,
      leaseMs(this.ctx.settings.timeoutMs),
    );
    if (events.length === this.#batch) this.#overlap();
    const results = await Promise.all(
      events.map((event) => deliverEvent(this.ctx, event, interrupt)),
    );
    await this.#record(events, results);
    return events.length;
  }

  /**
   * Starts one more lane beside the loop, unless `extraBatches` are out or the worker is stopped: it
   * claims and delivers batches for as long as they come back full (the backlog lasts).
   */
  #overlap(): void {
    const run = this.#run;
    if (!run || this.#extra.size >= this.#extraBatches) return;
    const lane: Promise<void> = (async () => {
      while (this.#run === run && await this.runOnce() === this.#batch);
    })().catch((err) => {
      log.warn("callback delivery: batch failed", {
        error: err instanceof Error ? err.message : String(err),
      });
    }).finally(() => this.#extra.delete(lane));
    this.#extra.add(lane);
  }

  /**
   * Writes a test `ping` for the app and delivers it in this call; null when the app has no
   * callback URL. The ping is written already claimed, so no background worker takes it first.
   */
  async pingNow(
    appId: number,
    payload: Record<string, unknown>,
  ): Promise<{ event: ClaimedEvent; result: Delivered } | null> {
    const event = await insertClaimedPing(
      this.ctx.sql,
      appId,
      payload,
      leaseMs(this.ctx.settings.timeoutMs),
    );
    if (!event) return null;
    const result = await deliverEvent(this.ctx, event, this.#interrupt.signal);
    await this.#record([event], [result]);
    return { event, result };
  }

  /** Records a batch's attempts in one statement, then logs and counts each (metrics). */
  async #record(events: ClaimedEvent[], results: Delivered[]): Promise<void> {
    await finishAttempts(
      this.ctx.sql,
      events.map((e, i) => ({ eventId: e.id, attempt: results[i].attempt, next: results[i].next })),
    );
    events.forEach(({ id, type, app }, i) => {
      const r = results[i];
      const result = deliveryResult(r);
      deliveries.add({ app: app.appName, result });
      deliveryDuration.record({ result }, r.attempt.durationMs / 1000);
      const fields = {
        event: id,
        type,
        status: r.next.status,
        statusCode: r.attempt.statusCode,
        error: r.attempt.error,
        durationMs: r.attempt.durationMs,
      };
      if (r.next.status === "delivered") log.debug("callback delivered", fields);
      else if (r.attempt.error === INTERRUPTED) log.info("callback released at shutdown", fields);
      else log.warn("callback attempt failed", fields);
    });
  }
}
