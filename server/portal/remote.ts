/**
 * Remote support from the portal (spec paths rules 2, 3 and 5; docs/remote.md): a request is
 * recorded on the session as `remote_requested` (with the launch and the agent), emits the
 * `remote.requested` callback and opens a screen-sharing invitation (server/remote/), all in one
 * transaction.
 */
import { insertSessionEvent, insertSessionEventOnce } from "../../db/queries/portal.ts";
import type { Deps } from "../deps.ts";
import { emitCallbackEvents } from "../callbacks/events.ts";
import { inTransaction } from "../transaction.ts";
import { createInvitation } from "../remote/invitations.ts";

/**
 * Records a remote connection request and opens an invitation. With `again` every call records
 * one (the Start button: a new invitation for the current path run); without it, one per launch
 * (landing in the remote view on reloads). Answers the new invitation's id, or null when this
 * launch had one already.
 */
export async function requestRemoteConnection(
  deps: Deps,
  r: { sessionId: number; agentId: number; launchId: number; again?: boolean },
): Promise<number | null> {
  return await inTransaction(deps, async (w) => {
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
      if (!first) return null;
    }
    await emitCallbackEvents(w, r.sessionId, [{
      type: "remote.requested",
      extra: { launchId: r.launchId },
    }]);
    const invitation = await createInvitation(deps, w, {
      sessionId: r.sessionId,
      agentId: r.agentId,
      via: r.again ? "portal" : "launch",
      launchId: r.launchId,
    });
    return invitation.id;
  });
}
