/** SQL of the agent portal screens. */
import type { Sql } from "../mod.ts";

/** The view options of a launch and the frame ancestors of its app. */
export interface LaunchView {
  view: unknown;
  frameAncestors: string[];
}

/**
 * The launch `launchId` when it landed this agent on this session, else null (a launch id taken
 * from someone else's URL does not apply).
 */
export async function findLaunchView(
  sql: Sql,
  q: { launchId: number; sessionId: number; agentId: number },
): Promise<LaunchView | null> {
  const [row] = await sql<LaunchView[]>`
    select l.view, coalesce(a.frame_ancestors, '{}') as frame_ancestors
    from launches l left join apps a on a.id = l.app_id
    where l.id = ${q.launchId} and l.session_id = ${q.sessionId} and l.agent_id = ${q.agentId}
      and l.outcome = 'ok'
  `;
  return row ?? null;
}
