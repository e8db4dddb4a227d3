/**
 * The functions every writer emits callback events with (the launch emits its own inside
 * launch_apply). They run in the writer's transaction, so an event exists exactly when its change
 * committed, and they tell the write (server/transaction.ts), which wakes this service's delivery
 * worker once it commits. Whether an event is written at all (the session has a referenceId, its
 * app has a callback URL and subscribes to the type) is decided in that same statement; which
 * events a session change emits is decided by the SQL function session_callback_types.
 */
import {
  insertCallbackEvents,
  insertChangeCallbackEvents,
  type SessionChangeFacts,
} from "../../db/queries/callback_events.ts";
import type { Write } from "../transaction.ts";
import type { EventType } from "./contract.ts";

/** One event: its type and the fields it adds to `data` (e.g. `pathUid`). */
export interface CallbackEvent {
  type: Exclude<EventType, "ping">;
  extra?: Record<string, unknown>;
}

/** Emits `events` for session `sessionId` in write `w`; returns how many were written. */
export async function emitCallbackEvents(
  w: Write,
  sessionId: number,
  events: CallbackEvent[],
): Promise<number> {
  const written = await insertCallbackEvents(w.tx, sessionId, events, new Date().toISOString());
  w.after.callbackEventsWritten(written);
  return written;
}

/**
 * Emits the callback events of a change to session `sessionId` (what it was and what it is now),
 * each with `extra`, in write `w`; returns how many were written.
 */
export async function emitChangeEvents(
  w: Write,
  sessionId: number,
  change: SessionChangeFacts,
  extra: Record<string, unknown>,
): Promise<number> {
  const written = await insertChangeCallbackEvents(
    w.tx,
    sessionId,
    change,
    extra,
    new Date().toISOString(),
  );
  w.after.callbackEventsWritten(written);
  return written;
}
