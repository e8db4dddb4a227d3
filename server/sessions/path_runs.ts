/** A guided path completed on a session: the run is recorded and `path.completed` emitted. */
import { insertPathRun } from "../../db/queries/portal.ts";
import type { Deps } from "../deps.ts";
import { emitSessionEvents, eventsCommitted } from "../callbacks/events.ts";

/** Records that `agentId` completed path `pathUid` on session `sessionId`, in one transaction. */
export async function completePath(
  deps: Deps,
  r: { sessionId: number; pathUid: string; pathTitle: string; agentId: number },
): Promise<void> {
  const emitted = await deps.sql.begin(async (tx) => {
    await insertPathRun(tx, { sessionId: r.sessionId, pathUid: r.pathUid, agentId: r.agentId });
    return await emitSessionEvents(tx, r.sessionId, [{
      type: "path.completed",
      extra: { pathUid: r.pathUid, pathTitle: r.pathTitle },
    }]);
  });
  if (emitted) eventsCommitted();
}
