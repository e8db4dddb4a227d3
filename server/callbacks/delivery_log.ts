/**
 * The delivery log as its readers use it (the REST API and the admin screen): events with their
 * attempts, and redelivery of one event (a new round of attempts with the same webhook-id).
 */
import {
  type DeliveryFilter,
  type DeliveryRow,
  listDeliveries,
  requeueEvent,
} from "../../db/queries/callback_events.ts";
import type { Deps } from "../deps.ts";
import { AppError } from "../http/errors.ts";
import { inStatement } from "../transaction.ts";

export type { DeliveryRow };

/** Events matching `filter`, newest first. */
export async function deliveries(deps: Deps, filter: DeliveryFilter): Promise<DeliveryRow[]> {
  return await listDeliveries(deps.sql, filter);
}

/**
 * Queues event `id` again. `appId` limits it to one app's events (undefined: any app): another
 * app's event is 404 like a missing one; an event being delivered right now is 409.
 */
export async function redeliver(
  deps: Deps,
  id: number,
  appId: number | null | undefined,
): Promise<DeliveryRow> {
  const [row] = await listDeliveries(deps.sql, { appId, id, limit: 1 });
  if (!row) throw new AppError(404, "delivery_not_found", `Delivery ${id} not found`);
  const requeued = await inStatement(deps, async (w) => {
    const done = await requeueEvent(w.tx, id);
    w.after.callbackEventsWritten(done ? 1 : 0);
    return done;
  });
  if (!requeued) {
    throw new AppError(409, "delivery_in_progress", `Delivery ${id} is being delivered now`);
  }
  const [queued] = await listDeliveries(deps.sql, { appId, id, limit: 1 });
  return queued;
}
