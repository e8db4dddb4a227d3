/** SQL of the launch flow: few statements, each race-safe (unique indexes + on conflict). */
import { eventRows, eventSessionColumns, type EventToEmit } from "./callback_events.ts";
import { jsonb, type Sql, type Tx } from "../mod.ts";

/** Everything the flow must know before writing, read in one round trip. */
export interface LaunchLookups {
  /** False when the request's replay key was already used (a replay). */
  replayFresh: boolean;
  externalSessionId: boolean;
  externalCustomerId: boolean;
  knownCustomFields: string[];
  session: {
    id: number;
    status: "open" | "closed";
    customerId: number;
    assigneeId: number | null;
  } | null;
  liveCategories: string[];
  livePaths: string[];
  liveTags: string[];
}

/** Reads settings, custom fields, the session (locked FOR UPDATE) and the catalog entries named. */
export async function launchLookups(
  tx: Tx,
  q: {
    sessionId: number | null;
    customFields: string[];
    categoryUids: string[];
    pathUids: string[];
    tags: string[];
    /** The launching app: only its sessions can be named. */
    appId: number;
    /** The request's replay key, stored for the app until it expires; null when unprotected. */
    replay: { appId: number; key: string; expiresAt: Date } | null;
  },
): Promise<LaunchLookups> {
  const r = q.replay;
  const [row] = await tx`
    with s as (
      -- Another app's session is no session: not processed, like an unknown one.
      select id, status, customer_id, assignee_id from sessions
      where id = ${q.sessionId} and app_id = ${q.appId} for update
    ),
    used as (
      insert into launch_nonces (app_id, nonce, expires_at)
      select ${r?.appId ?? null}, ${r?.key ?? null}, ${r?.expiresAt ?? null}
      where ${r?.key ?? null}::text is not null
      on conflict do nothing
      returning 1
    )
    select
      (${r?.key ?? null}::text is null or exists (select 1 from used)) as replay_fresh,
      f.external_session_id,
      f.external_customer_id,
      array(
        select name from custom_field_definitions where name = any(${q.customFields}::text[])
      ) as known_custom_fields,
      (select row_to_json(s) from s) as session,
      array(
        select uid::text from path_categories
        where uid = any(${q.categoryUids}::uuid[]) and deleted_at is null
      ) as live_categories,
      array(
        select uid::text from paths
        where uid = any(${q.pathUids}::uuid[]) and deleted_at is null and published
      ) as live_paths,
      array(
        select distinct t from paths, unnest(tags) t
        where tags && ${q.tags}::text[] and t = any(${q.tags}::text[])
          and deleted_at is null and published
      ) as live_tags
    from field_settings f where f.id
  `;
  const s = row.session as
    | { id: number; status: "open" | "closed"; customer_id: number; assignee_id: number | null }
    | null;
  return {
    replayFresh: row.replayFresh,
    externalSessionId: row.externalSessionId,
    externalCustomerId: row.externalCustomerId,
    knownCustomFields: row.knownCustomFields,
    session: s
      ? {
        id: Number(s.id),
        status: s.status,
        customerId: Number(s.customer_id),
        assigneeId: s.assignee_id === null ? null : Number(s.assignee_id),
      }
      : null,
    liveCategories: row.liveCategories,
    livePaths: row.livePaths,
    liveTags: row.liveTags,
  };
}

/** The session a launch writes: a new one (id null) or an existing one. */
export interface SessionWrite {
  id: number | null;
  customerId: number;
  agentId: number;
  externalReference: string;
  referenceId: string | null;
  appId: number;
  target: string;
  /** Existing session: assign it to the agent (only when it is open). */
  assign: boolean;
}

/**
 * Everything after the agent and customer, in ONE statement: the session (created, assigned to
 * the agent; or updated: customer, references, and the assignee only when `assign` is set and the
 * session is open, so a closed session keeps its status and assignment), custom fields, devices,
 * teams, the launch record and the portal login.
 */
export async function writeLaunch(
  tx: Tx,
  v: {
    session: SessionWrite;
    customFields: Record<string, unknown>;
    devices: { kind: string; properties: Record<string, unknown> }[];
    teams: { teamId: string; teamName: string }[];
    launch: {
      appId: number;
      appName: string;
      clientAddress: string | null;
      userAgent: string | null;
      payload: unknown;
      view: unknown;
      warnings: unknown[];
      keyUsed: "current" | "previous";
      protection: "protected" | "unprotected" | "off";
      replayKey: string | null;
    };
    login: { tokenHash: string; expiresAt: Date };
    /** Callback events of the launch (written when the session and its app call for them). */
    events: EventToEmit[];
    eventTimestamp: string;
    /** A Canvas-style launch's CRM instance and sealed token, kept on the session. */
    crm: { instanceUrl: string; oauthTokenSealed: string | null } | null;
  },
): Promise<{ launchId: number; sessionId: number; events: number }> {
  const s = v.session;
  const agentId = s.agentId;
  const json = (value: unknown) => jsonb(tx, value);
  const [row] = await tx<{ launchId: number; sessionId: number; events: number }[]>`
    with created as (
      insert into sessions (customer_id, assignee_id, external_reference, reference_id, app_id,
        target)
      select ${s.customerId}, ${agentId}, ${s.externalReference}, ${s.referenceId}, ${s.appId},
        ${s.target}
      where ${s.id}::bigint is null
      returning ${eventSessionColumns(tx)}
    ),
    updated as (
      update sessions set
        customer_id = ${s.customerId},
        external_reference = ${s.externalReference},
        reference_id = coalesce(${s.referenceId}, reference_id),
        assignee_id = case when ${s.assign} and status = 'open' then ${agentId}::bigint
          else assignee_id end,
        updated_at = now()
      where id = ${s.id}::bigint
      returning ${eventSessionColumns(tx)}
    ),
    session as (select id from created union all select id from updated),
    ev_session as (select * from created union all select * from updated),
    events as (${eventRows(tx, v.events, v.eventTimestamp)}),
    crm as (
      insert into session_crm_contexts (session_id, app_id, instance_url, oauth_token_sealed)
      select session.id, ${s.appId}, ${v.crm?.instanceUrl ?? null}, ${
    v.crm?.oauthTokenSealed ?? null
  }
      from session where ${v.crm?.instanceUrl ?? null}::text is not null
      on conflict (session_id) do update set instance_url = excluded.instance_url,
        oauth_token_sealed = excluded.oauth_token_sealed, updated_at = now()
      returning 1
    ),
    cf as (
      insert into session_custom_fields (session_id, name, value)
      select session.id, key, value from session, jsonb_each(${json(v.customFields)}::jsonb)
      on conflict (session_id, name) do update set value = excluded.value, updated_at = now()
      returning 1
    ),
    dev as (
      -- A device with a serial is upserted by (kind, serial); one without is added unless the
      -- session already has an identical one (a relaunch does not duplicate it).
      insert into devices (session_id, kind, serial, properties)
      select session.id, d ->> 'kind', d -> 'properties' ->> 'serial', d -> 'properties'
      from session, jsonb_array_elements(${json(v.devices)}::jsonb) d
      where d -> 'properties' ? 'serial' or not exists (
        select 1 from devices x
        where x.session_id = session.id and x.kind = d ->> 'kind' and x.serial is null
          and x.properties = d -> 'properties'
      )
      on conflict (session_id, kind, serial)
        do update set properties = excluded.properties, updated_at = now()
      returning 1
    ),
    team_rows as (
      insert into teams (team_id, name)
      select t ->> 'teamId', t ->> 'teamName' from jsonb_array_elements(${json(v.teams)}::jsonb) t
      on conflict (team_id) do update set name = excluded.name, updated_at = now()
      returning id
    ),
    membership as (
      insert into team_members (team_id, user_id)
      select id, ${agentId} from team_rows
      on conflict do nothing
      returning 1
    ),
    launch as (
      insert into launches (app_id, app_name, outcome, agent_id, session_id, client_address,
        user_agent, payload, view, warnings, key_used, protection, replay_key)
      select ${v.launch.appId}, ${v.launch.appName}, 'ok', ${agentId}, session.id,
        ${v.launch.clientAddress}, ${v.launch.userAgent?.slice(0, 256) ?? null},
        ${json(v.launch.payload)},
        ${json(v.launch.view)}, ${json(v.launch.warnings)}, ${v.launch.keyUsed},
        ${v.launch.protection}, ${v.launch.replayKey}
      from session
      returning id, session_id
    ),
    login as (
      insert into logins (token_hash, user_id, expires_at, launch_id, kind)
      select ${v.login.tokenHash}, ${agentId}, ${v.login.expiresAt}, launch.id, 'portal'
      from launch
      returning 1
    )
    select id as launch_id, session_id, (select count(*)::int from events) as events
    from launch
  `;
  return row;
}

/** Records a failed launch attempt (outside the failed transaction). */
export async function insertFailedLaunch(
  tx: Tx,
  v: {
    appId: number | null;
    appName: string;
    outcome: string;
    message: string;
    clientAddress: string | null;
    userAgent: string | null;
    payload: unknown;
    warnings: unknown[];
  },
): Promise<number> {
  const [row] = await tx<{ id: number }[]>`
    insert into launches (app_id, app_name, outcome, message, client_address, user_agent,
      payload, warnings)
    values (${v.appId}, ${v.appName.slice(0, 64)}, ${v.outcome}, ${v.message}, ${v.clientAddress},
      ${v.userAgent?.slice(0, 256) ?? null}, ${v.payload === null ? null : jsonb(tx, v.payload)},
      ${jsonb(tx, v.warnings)})
    returning id
  `;
  return row.id;
}

/** An app as the launch endpoint needs it: policy, signing keys (sealed) and embedders. */
export interface LaunchApp {
  id: number;
  appName: string;
  enabled: boolean;
  authType: "signed_request" | "oauth2_signed_request";
  apiKeySealed: string | null;
  consumerSecretSealed: string | null;
  apiKeyPreviousSealed: string | null;
  consumerSecretPreviousSealed: string | null;
  previousKeyExpiresAt: Date | null;
  frameAncestors: string[];
  replayProtection: "required" | "optional" | "off";
  maxAgeSeconds: number;
  /** The implementor class: how its signed requests map onto the payload contract. */
  implementor: "default" | "crm_standard" | "crm_v6_5";
}

/** The app named `appName` (case-insensitive), or null. */
export async function findLaunchApp(sql: Sql, appName: string): Promise<LaunchApp | null> {
  const [row] = await sql<LaunchApp[]>`
    select id, app_name, enabled, auth_type, api_key_sealed, consumer_secret_sealed,
      api_key_previous_sealed, consumer_secret_previous_sealed, previous_key_expires_at,
      frame_ancestors, replay_protection, max_age_seconds, implementor
    from apps where lower(app_name) = lower(${appName})
  `;
  return row ? { ...row, id: Number(row.id) } : null;
}

/**
 * The session a replay re-enters: when the login of `tokenHash` is live and was created by a
 * launch of `appId` with this replay key, that launch's session and id; else null.
 */
export async function reentryOf(
  sql: Sql,
  q: { tokenHash: string; appId: number; replayKey: string },
): Promise<{ sessionId: number; launchId: number } | null> {
  const [row] = await sql<{ sessionId: number; launchId: number }[]>`
    select l.session_id, l.id as launch_id
    from logins pl join launches l on l.id = pl.launch_id
    where pl.token_hash = ${q.tokenHash} and pl.expires_at > now()
      and l.app_id = ${q.appId} and l.replay_key = ${q.replayKey} and l.outcome = 'ok'
  `;
  return row ? { sessionId: Number(row.sessionId), launchId: Number(row.launchId) } : null;
}
