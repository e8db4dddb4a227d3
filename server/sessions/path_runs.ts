/** A guided path completed on a session: the run is recorded and `path.completed` emitted. */
import { insertPathRun } from "../../db/queries/portal.ts";
import type { Deps } from "../deps.ts";
import { emitCallbackEvents } from "../callbacks/events.ts";
import { inTransaction } from "../transaction.ts";

/** Records that `agentId` completed path `pathUid` on session `sessionId`, in one transaction. */
export async function completePath(
  deps: Deps,
  r: { sessionId: number; pathUid: string; pathTitle: string; agentId: number },
): Promise<void> {
  await inTransaction(deps, async (w) => {
    await insertPathRun(w.tx, { sessionId: r.sessionId, pathUid: r.pathUid, agentId: r.agentId });
    await emitCallbackEvents(w, r.sessionId, [{
      type: "path.completed",
      extra: { pathUid: r.pathUid, pathTitle: r.pathTitle },
    }]);
  });
}
