/** SQL of the agent portal screens. */
import { jsonb, type Sql, type Tx } from "../mod.ts";

/** The view options of a launch, the session it opened and the frame ancestors of its app. */
export interface LaunchView {
  view: unknown;
  sessionId: number;
  frameAncestors: string[];
  /** What the launch ignored, repaired or resolved. */
  warnings: { path: string; code: string; message: string }[];
}

/**
 * The launch `launchId` when it logged this agent in, else null (a launch id taken from someone
 * else's URL does not apply).
 */
export async function findLaunchView(
  sql: Sql,
  q: { launchId: number; agentId: number },
): Promise<LaunchView | null> {
  const [row] = await sql<LaunchView[]>`
    select l.view, l.session_id, coalesce(a.frame_ancestors, '{}') as frame_ancestors,
      l.warnings
    from launches l left join apps a on a.id = l.app_id
    where l.id = ${q.launchId} and l.agent_id = ${q.agentId} and l.outcome = 'ok'
  `;
  return row ? { ...row, sessionId: Number(row.sessionId) } : null;
}

/**
 * True when the agent may open the session: only a session of an app of the agent's own
 * organization, and then its assignee, an agent a launch put on it, or an agent sharing a team
 * with its assignee.
 */
export async function agentReachesSession(
  sql: Sql,
  q: { agentId: number; sessionId: number },
): Promise<boolean> {
  const [row] = await sql<{ reaches: boolean }[]>`
    select exists (
      select 1 from sessions s
        join apps a on a.id = s.app_id
        join users me on me.id = ${q.agentId} and me.organization_id = a.organization_id
      where s.id = ${q.sessionId} and (
        s.assignee_id = ${q.agentId}
        or exists (select 1 from launches l
          where l.session_id = s.id and l.agent_id = ${q.agentId} and l.outcome = 'ok')
        or exists (select 1 from team_members mine join team_members theirs
          on theirs.team_id = mine.team_id
          where mine.user_id = ${q.agentId} and theirs.user_id = s.assignee_id)
      )
    ) as reaches
  `;
  return row.reaches;
}

/** What the session screen shows beside the session: field settings and custom-field labels. */
export interface ScreenSettings {
  externalSessionId: boolean;
  externalCustomerId: boolean;
  labels: Record<string, string>;
}

/** Reads the field settings and the custom-field labels. */
export async function screenSettings(sql: Sql): Promise<ScreenSettings> {
  const [row] = await sql<ScreenSettings[]>`
    select f.external_session_id, f.external_customer_id,
      coalesce((select json_object_agg(name, label) from custom_field_definitions), '{}')
        as labels
    from field_settings f where f.id
  `;
  return row;
}

/** A published, live path for the portal. */
export interface PortalPathRow {
  uid: string;
  categoryUid: string;
  title: string;
  tags: string[];
  steps: { title: string; body: string }[];
  translations: Record<string, { title: string; steps?: { title: string; body: string }[] }>;
}

/** Every published, live path of a live category, by title. */
export async function publishedPaths(sql: Sql): Promise<PortalPathRow[]> {
  return await sql<PortalPathRow[]>`
    select p.uid::text, p.category_uid::text, p.title, p.tags, p.steps, p.translations
    from paths p join path_categories c on c.uid = p.category_uid
    where p.published and p.deleted_at is null and c.deleted_at is null
    order by p.title, p.uid
  `;
}

/** The agent's most recently run path uids, newest first, without repeats. */
export async function recentPathUids(sql: Sql, agentId: number, limit: number): Promise<string[]> {
  const rows = await sql<{ pathUid: string }[]>`
    select path_uid::text from path_runs where agent_id = ${agentId}
    group by path_uid order by max(ran_at) desc, path_uid limit ${limit}
  `;
  return rows.map((r) => r.pathUid);
}

/**
 * Agents session `sessionId` can be transferred to: the enabled agents of its organization (its
 * app's) but `exceptId`, by name.
 */
export async function transferTargets(
  sql: Sql,
  q: { sessionId: number; exceptId: number },
): Promise<{ id: number; firstName: string; lastName: string; email: string }[]> {
  return await sql`
    select u.id, u.first_name, u.last_name, u.email from users u
    where u.role = 'agent' and u.id <> ${q.exceptId} and u.disabled_at is null
      and u.organization_id = (select coalesce(a.organization_id, 1)
        from sessions s left join apps a on a.id = s.app_id where s.id = ${q.sessionId})
    order by u.last_name, u.first_name, u.id limit 500
  `;
}

/** The sessions assigned to an agent, of its own organization's apps only, newest first. */
export async function sessionsOfAgent(
  sql: Sql,
  agentId: number,
  limit: number,
): Promise<
  {
    id: number;
    status: string;
    externalReference: string | null;
    firstName: string;
    lastName: string;
    updatedAt: Date;
  }[]
> {
  return await sql`
    select s.id, s.status, s.external_reference, c.first_name, c.last_name, s.updated_at
    from sessions s join customers c on c.id = s.customer_id
      join apps a on a.id = s.app_id
      join users me on me.id = s.assignee_id and me.organization_id = a.organization_id
    where s.assignee_id = ${agentId}
    order by s.id desc limit ${limit}
  `;
}

/** Records a path run. */
export async function insertPathRun(
  sql: Sql | Tx,
  v: { sessionId: number; pathUid: string; agentId: number },
): Promise<void> {
  await sql`
    insert into path_runs (session_id, path_uid, agent_id)
    values (${v.sessionId}, ${v.pathUid}, ${v.agentId})
  `;
}

/** Event kinds recorded on a session. */
export type SessionEventKind =
  | "status_changed"
  | "assigned"
  | "transferred"
  | "remote_requested"
  | "visual_support_started"
  | "remote_invited"
  | "remote_joined"
  | "remote_consented"
  | "remote_sharing_started"
  | "remote_sharing_stopped"
  | "remote_ended";

/** Records an event on a session. */
export async function insertSessionEvent(
  tx: Sql | Tx,
  v: { sessionId: number; kind: SessionEventKind; agentId: number | null; detail: unknown },
): Promise<void> {
  await tx`
    insert into session_events (session_id, kind, agent_id, detail)
    values (${v.sessionId}, ${v.kind}, ${v.agentId}, ${jsonb(tx as Tx, v.detail)})
  `;
}

/** Records `kind` once per launch: false when this launch already recorded it. */
export async function insertSessionEventOnce(
  sql: Sql | Tx,
  v: { sessionId: number; kind: SessionEventKind; agentId: number; launchId: number },
): Promise<boolean> {
  const rows = await sql`
    insert into session_events (session_id, kind, agent_id, detail)
    select ${v.sessionId}, ${v.kind}, ${v.agentId}, jsonb_build_object('launchId', ${v.launchId}::bigint)
    where not exists (
      select 1 from session_events where session_id = ${v.sessionId} and kind = ${v.kind}
        and detail ->> 'launchId' = ${String(v.launchId)}
    )
    returning 1
  `;
  return rows.length > 0;
}
