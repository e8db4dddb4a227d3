/**
 * Changing a session after it exists: status, assignee, custom fields. One set of rules for every
 * caller (the REST API and the agent portal), applied in one transaction with the session locked.
 */
import { insertSessionEvent } from "../../db/queries/portal.ts";
import { applySessionChange, changeLookups } from "../../db/queries/sessions.ts";
import type { Deps } from "../deps.ts";
import { AppError, type FieldError } from "../http/errors.ts";
import { emitChangeEvents } from "../callbacks/events.ts";
import { inTransaction } from "../transaction.ts";

/** A change; an absent key leaves that part as it is. */
export interface SessionChange {
  status?: "open" | "closed";
  /** An agent's id, or null to unassign. */
  assigneeId?: number | null;
  /** Values to set; null removes the field from the session. */
  customFields?: Record<string, string | number | boolean | null>;
}

/** Who makes a change: the agent on the portal, or an API client (agentId null). */
export interface ChangeActor {
  agentId: number | null;
  via: "portal" | "api";
}

/**
 * Applies `change` to session `id` and records what changed on the session (status_changed;
 * assigned when the actor takes the session, transferred otherwise). 404 when there is no such
 * session; 400 naming each custom field that is not configured and an assignee that is not an
 * agent. Nothing is written then.
 */
export async function changeSession(
  deps: Deps,
  id: number,
  change: SessionChange,
  actor: ChangeActor,
): Promise<void> {
  const fields = change.customFields ?? {};
  await inTransaction(deps, async (w) => {
    const tx = w.tx;
    const found = await changeLookups(tx, {
      sessionId: id,
      customFields: Object.keys(fields),
      assigneeId: change.assigneeId ?? null,
    });
    if (!found.session) throw new AppError(404, "session_not_found", `Session ${id} not found`);
    const errors: FieldError[] = [];
    for (const name of Object.keys(fields)) {
      if (!found.knownCustomFields.includes(name)) {
        errors.push({
          path: `customFields.${name}`,
          message: "not configured in the custom-fields setup",
        });
      }
    }
    // One answer for every id that is not an enabled agent of the session's organization, so
    // that no id can be probed (another organization's agent, an administrator, a disabled agent
    // and no user at all look alike).
    if (change.assigneeId != null && !found.assigneeAllowed) {
      errors.push({
        path: "assigneeId",
        code: "invalid_assignee",
        message: "not an enabled agent of this session's organization; " +
          "GET /api/v1/agents lists the agents you can assign",
      });
    }
    if (errors.length) {
      const code = errors.every((e) => e.code === "invalid_assignee")
        ? "invalid_assignee"
        : "invalid_change";
      throw new AppError(400, code, "The session cannot be changed so", errors);
    }
    const setFields: Record<string, string | number | boolean> = {};
    const removeFields: string[] = [];
    for (const [name, value] of Object.entries(fields)) {
      if (value === null) removeFields.push(name);
      else setFields[name] = value;
    }
    await applySessionChange(tx, {
      sessionId: id,
      status: change.status,
      assigneeId: change.assigneeId,
      setFields,
      removeFields,
    });
    const before = found.session;
    if (change.status !== undefined && change.status !== before.status) {
      await insertSessionEvent(tx, {
        sessionId: id,
        kind: "status_changed",
        agentId: actor.agentId,
        detail: { from: before.status, to: change.status, via: actor.via },
      });
    }
    if (change.assigneeId !== undefined && change.assigneeId !== before.assigneeId) {
      await insertSessionEvent(tx, {
        sessionId: id,
        kind: change.assigneeId !== null && change.assigneeId === actor.agentId
          ? "assigned"
          : "transferred",
        agentId: actor.agentId,
        detail: { from: before.assigneeId, to: change.assigneeId, via: actor.via },
      });
    }
    await emitChangeEvents(w, id, {
      statusFrom: before.status,
      statusTo: change.status ?? before.status,
      assigneeFrom: before.assigneeId,
      assigneeTo: change.assigneeId === undefined ? before.assigneeId : change.assigneeId,
      updated: Object.keys(setFields).length > 0 || removeFields.length > 0,
    }, { via: actor.via });
  });
}
