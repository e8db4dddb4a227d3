/**
 * Remote control. Portal Launcher has no remote-control engine: a request is recorded on the
 * session as `remote_requested` (with the launch and the agent), and the remote control view says
 * so. This function is the one seam where a real engine plugs in: start the connection here and
 * record what it answers.
 */
import { insertSessionEvent, insertSessionEventOnce } from "../../db/queries/portal.ts";
import type { Deps } from "../deps.ts";
import { emitCallbackEvents } from "../callbacks/events.ts";
import { inTransaction } from "../transaction.ts";

/**
 * Records a remote connection request. With `again` every call records one (the Start Remote
 * Connection button); without it, one per launch (landing in the remote view on reloads).
 */
export async function requestRemoteConnection(
  deps: Deps,
  r: { sessionId: number; agentId: number; launchId: number; again?: boolean },
): Promise<void> {
  await inTransaction(deps, async (w) => {
    const tx = w.tx;
    if (r.again) {
      await insertSessionEvent(tx, {
        sessionId: r.sessionId,
        kind: "remote_requested",
        agentId: r.agentId,
        detail: { launchId: r.launchId, via: "button" },
      });
    } else {
      const first = await insertSessionEventOnce(tx, {
        sessionId: r.sessionId,
        kind: "remote_requested",
        agentId: r.agentId,
        launchId: r.launchId,
      });
      if (!first) return;
    }
    await emitCallbackEvents(w, r.sessionId, [{
      type: "remote.requested",
      extra: { launchId: r.launchId },
    }]);
  });
}
