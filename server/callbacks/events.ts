/**
 * The one function every session change goes through to emit callback events: the launch, the
 * portal's actions and the REST API call it inside their own transaction, so an event exists
 * exactly when its change committed. Whether it is written at all (the session has a referenceId,
 * its app has a callback URL and subscribes to the type) is decided in that same statement.
 */
import type { Tx } from "../../db/mod.ts";
import { insertSessionEvents } from "../../db/queries/callback_events.ts";
import type { EventType } from "./contract.ts";

/** One event: its type and the fields it adds to `data` (e.g. `pathUid`). */
export interface SessionEvent {
  type: Exclude<EventType, "ping">;
  extra?: Record<string, unknown>;
}

/** Local wake-ups of this process's delivery worker, called after a commit that emitted. */
const listeners = new Set<() => void>();

/** Registers a worker's wake-up; returns its removal. */
export function onEventsEmitted(wake: () => void): () => void {
  listeners.add(wake);
  return () => listeners.delete(wake);
}

/**
 * Emits `events` for session `sessionId` in transaction `tx`. Call `eventsCommitted()` after the
 * transaction commits so this process's worker delivers them at once (other processes find them
 * at their next poll).
 */
export async function emitSessionEvents(
  tx: Tx,
  sessionId: number,
  events: SessionEvent[],
): Promise<number> {
  return await insertSessionEvents(tx, sessionId, events, new Date().toISOString());
}

/** Wakes the delivery workers of this process. */
export function eventsCommitted(): void {
  for (const wake of listeners) wake();
}
