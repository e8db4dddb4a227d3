/** SQL for apps (the spec's authentication configurations). */
import type { Tx } from "../mod.ts";
import { isUniqueViolation } from "../errors.ts";

/** A stored app; secrets are sealed. */
export interface AppRow {
  id: number;
  appName: string;
  name: string;
  /** The organization that owns the app (its agents and teams are the organization's). */
  organizationId: number;
  /** The slug of that organization (read only: organizationId is what is written). */
  organization: string;
  authType: "signed_request" | "oauth2_signed_request";
  apiKeySealed: string | null;
  consumerKey: string | null;
  consumerSecretSealed: string | null;
  implementor: "default" | "crm_standard" | "crm_v6_5";
  /** Replay protection of its signed requests: required, optional (legacy senders) or off. */
  replayProtection: "required" | "optional" | "off";
  /** How old an issuedAt may be, in seconds (30-3600). */
  maxAgeSeconds: number;
  frameAncestors: string[];
  enabled: boolean;
  /** Callback URL template; null: no callbacks. */
  callbackUrl: string | null;
  callbackMethod: "POST" | "PUT" | "PATCH";
  /** Event types sent; null: all. */
  callbackEvents: string[] | null;
  tokenUrl: string | null;
  tokenAuthMethod: "client_secret_basic" | "client_secret_post";
  callbackSecretSealed: string | null;
  callbackSecretPreviousSealed: string | null;
  callbackSecretPreviousExpiresAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

/** The writable columns of an app (the callback secret has its own rotation). */
export type AppValues = Omit<
  AppRow,
  | "id"
  | "organization"
  | "createdAt"
  | "updatedAt"
  | "callbackSecretPreviousSealed"
  | "callbackSecretPreviousExpiresAt"
>;

/** The columns of an app row as AppRow reads them (`a`: the app), with its organization's slug. */
const appColumns = (tx: Tx) =>
  tx`a.*, (select o.slug from organizations o where o.id = a.organization_id) as organization`;

/** Inserts an app; returns null when the App Name is taken (case-insensitively). */
export async function insertApp(tx: Tx, values: AppValues): Promise<AppRow | null> {
  const [row] = await tx<AppRow[]>`
    insert into apps as a (
      organization_id, app_name, name, auth_type, api_key_sealed, consumer_key, consumer_secret_sealed,
      implementor, frame_ancestors, enabled, replay_protection, max_age_seconds, callback_url,
      callback_method, callback_events, token_url, token_auth_method, callback_secret_sealed
    ) values (
      ${values.organizationId}, ${values.appName}, ${values.name}, ${values.authType}, ${values.apiKeySealed},
      ${values.consumerKey}, ${values.consumerSecretSealed}, ${values.implementor},
      ${values.frameAncestors}, ${values.enabled}, ${values.replayProtection},
      ${values.maxAgeSeconds}, ${values.callbackUrl}, ${values.callbackMethod},
      ${values.callbackEvents}, ${values.tokenUrl}, ${values.tokenAuthMethod},
      ${values.callbackSecretSealed}
    )
    on conflict do nothing
    returning ${appColumns(tx)}
  `;
  return row ?? null;
}

/** Finds an app by App Name (case-insensitive). */
export async function findAppByName(tx: Tx, appName: string): Promise<AppRow | null> {
  const [row] = await tx<AppRow[]>`
    select ${appColumns(tx)} from apps a where lower(a.app_name) = lower(${appName})
  `;
  return row ?? null;
}

/** Lists every app by App Name, or the apps of one organization. */
export async function listApps(tx: Tx, organizationId?: number): Promise<AppRow[]> {
  return await tx<AppRow[]>`
    select ${appColumns(tx)} from apps a
    ${organizationId !== undefined ? tx`where a.organization_id = ${organizationId}` : tx``}
    order by lower(a.app_name)
  `;
}

/**
 * Up to `limit` apps of the organization of app `appId`, itself left out, the newest first (a key
 * mixed up is likeliest a recently added app's): the few keys a refused launch's diagnosis may try
 * (server/launch/signature_diagnosis.ts).
 */
export async function organizationAppsBeside(
  tx: Tx,
  appId: number,
  limit: number,
): Promise<AppRow[]> {
  return await tx<AppRow[]>`
    select ${appColumns(tx)} from apps a
    where a.organization_id = (select organization_id from apps where id = ${appId})
      and a.id <> ${appId}
    order by a.id desc limit ${limit}
  `;
}

/**
 * Locks an app before it moves to another organization and tells whether it has sessions; null
 * when it does not exist. The lock waits for launches writing a session of the app and holds off
 * new ones until the move commits.
 */
export async function lockAppForMove(
  tx: Tx,
  id: number,
): Promise<{ hasSessions: boolean } | null> {
  const [row] = await tx<{ hasSessions: boolean }[]>`
    select exists (select 1 from sessions s where s.app_id = a.id) as has_sessions
    from apps a where a.id = ${id} for update
  `;
  return row ?? null;
}

/** Forgets the agents' external ids of an app (they name agents of its former organization). */
export async function deleteAgentExternalIds(tx: Tx, appId: number): Promise<number> {
  const rows = await tx`delete from agent_external_ids where app_id = ${appId} returning 1`;
  return rows.length;
}

/** Replaces an app's writable columns; null when it does not exist, "conflict" on a taken name. */
export async function updateApp(
  tx: Tx,
  id: number,
  values: AppValues,
): Promise<AppRow | null | "conflict"> {
  try {
    const [row] = await tx<AppRow[]>`
      update apps as a set
        organization_id = ${values.organizationId},
        app_name = ${values.appName},
        name = ${values.name},
        auth_type = ${values.authType},
        api_key_sealed = ${values.apiKeySealed},
        consumer_key = ${values.consumerKey},
        consumer_secret_sealed = ${values.consumerSecretSealed},
        implementor = ${values.implementor},
        frame_ancestors = ${values.frameAncestors},
        enabled = ${values.enabled},
        replay_protection = ${values.replayProtection},
        max_age_seconds = ${values.maxAgeSeconds},
        callback_url = ${values.callbackUrl},
        callback_method = ${values.callbackMethod},
        callback_events = ${values.callbackEvents},
        token_url = ${values.tokenUrl},
        token_auth_method = ${values.tokenAuthMethod},
        callback_secret_sealed = ${values.callbackSecretSealed},
        updated_at = now()
      where a.id = ${id}
      returning ${appColumns(tx)}
    `;
    return row ?? null;
  } catch (err) {
    if (isUniqueViolation(err)) return "conflict";
    throw err;
  }
}

/** What an app holds that deleting it would take along (its launch log included). */
export interface AppHoldings {
  sessions: number;
  customers: number;
  launches: number;
}

/**
 * Counts what an app holds; null when it does not exist. With `lock` (before a delete) the app is
 * locked: the lock waits for launches writing a session of the app and holds off new ones until
 * the delete commits, so the counts stay true. Its sessions are its own and its customers'.
 */
export async function appHoldings(
  tx: Tx,
  id: number,
  lock = false,
): Promise<AppHoldings | null> {
  const [row] = await tx<AppHoldings[]>`
    select
      (select count(*) from sessions s
        where s.app_id = a.id
          or s.customer_id in (select c.id from customers c where c.app_id = a.id))::int
        as sessions,
      (select count(*) from customers c where c.app_id = a.id)::int as customers,
      (select count(*) from launches l where l.app_id = a.id)::int as launches
    from apps a where a.id = ${id} ${lock ? tx`for update` : tx``}
  `;
  return row ?? null;
}

/**
 * Deletes an app's sessions (with what hangs off them: custom fields, devices, path runs, events,
 * CRM contexts) and its launch log records, so that the app and its customers can go next.
 */
export async function deleteAppHoldings(tx: Tx, id: number): Promise<void> {
  await tx`
    delete from sessions s
    where s.app_id = ${id}
      or s.customer_id in (select c.id from customers c where c.app_id = ${id})
  `;
  await tx`delete from launches where app_id = ${id}`;
}

/** Deletes an app (its API client and tokens go with it); false when it did not exist. */
export async function deleteApp(tx: Tx, id: number): Promise<boolean> {
  const rows = await tx`delete from apps where id = ${id} returning id`;
  return rows.length > 0;
}

/** Which signing secret of an app: the API key, or the OAuth apps' consumer secret. */
export type SigningField = "api_key" | "consumer_secret";

/**
 * Puts a new sealed signing secret in place; the old one stays valid as the previous key until
 * `previousExpiresAt` (null: revoked at once). Returns false when the app does not exist.
 */
export async function replaceSigningKey(
  tx: Tx,
  id: number,
  v: { field: SigningField; sealed: string; previousExpiresAt: Date | null },
): Promise<boolean> {
  const keep = v.previousExpiresAt !== null;
  const rows = v.field === "api_key"
    ? await tx`
      update apps set
        api_key_previous_sealed = case when ${keep} then api_key_sealed end,
        api_key_sealed = ${v.sealed},
        previous_key_expires_at = ${v.previousExpiresAt},
        key_rotated_at = now(), updated_at = now()
      where id = ${id} returning 1`
    : await tx`
      update apps set
        consumer_secret_previous_sealed = case when ${keep} then consumer_secret_sealed end,
        consumer_secret_sealed = ${v.sealed},
        previous_key_expires_at = ${v.previousExpiresAt},
        key_rotated_at = now(), updated_at = now()
      where id = ${id} returning 1`;
  return rows.length > 0;
}

/** Ends a rotation's overlap: the previous signing secret stops verifying. */
export async function dropPreviousKey(tx: Tx, id: number): Promise<void> {
  await tx`
    update apps set api_key_previous_sealed = null, consumer_secret_previous_sealed = null,
      previous_key_expires_at = null, updated_at = now()
    where id = ${id}
  `;
}

/** Every sealed signing secret of every app (for resealing at start). */
export async function allSealedSecrets(tx: Tx): Promise<
  {
    id: number;
    apiKeySealed: string | null;
    apiKeyPreviousSealed: string | null;
    consumerSecretSealed: string | null;
    consumerSecretPreviousSealed: string | null;
    callbackSecretSealed: string | null;
    callbackSecretPreviousSealed: string | null;
  }[]
> {
  return await tx`
    select id, api_key_sealed, api_key_previous_sealed, consumer_secret_sealed,
      consumer_secret_previous_sealed, callback_secret_sealed, callback_secret_previous_sealed
    from apps order by id
  `;
}

/** The sealed columns of an app. */
export type SealedColumn =
  | "api_key_sealed"
  | "api_key_previous_sealed"
  | "consumer_secret_sealed"
  | "consumer_secret_previous_sealed"
  | "callback_secret_sealed"
  | "callback_secret_previous_sealed";

/** Replaces one sealed column of an app (same secret, sealed again). */
export async function updateSealed(
  tx: Tx,
  id: number,
  column: SealedColumn,
  sealed: string,
): Promise<void> {
  await tx`update apps set ${tx(column)} = ${sealed} where id = ${id}`;
}

/** When each signing key of an app last verified a launch, and how long the previous one lives. */
export interface KeyUsage {
  currentLastUsedAt: Date | null;
  previousExpiresAt: Date | null;
  previousLastUsedAt: Date | null;
}

/**
 * Key usage from the launch log: the current key's last use is its latest launch since the last
 * rotation; the previous key's is its latest launch as "previous", or as "current" before then.
 */
export async function keyUsage(tx: Tx, appId: number): Promise<KeyUsage> {
  const [row] = await tx<KeyUsage[]>`
    select
      (select max(l.created_at) from launches l
        where l.app_id = a.id and l.outcome = 'ok' and l.key_used = 'current'
          and l.created_at >= coalesce(a.key_rotated_at, '-infinity')) as current_last_used_at,
      case when a.api_key_previous_sealed is not null
        or a.consumer_secret_previous_sealed is not null
        then a.previous_key_expires_at end as previous_expires_at,
      (select max(l.created_at) from launches l
        where l.app_id = a.id and l.outcome = 'ok' and (l.key_used = 'previous'
          or (l.key_used = 'current' and l.created_at < a.key_rotated_at)))
        as previous_last_used_at
    from apps a where a.id = ${appId}
  `;
  return row;
}

/**
 * Puts a new sealed callback secret in place; the old one keeps signing (both signatures are
 * sent) until `previousExpiresAt` (null: dropped at once). False when the app does not exist.
 */
export async function replaceCallbackSecret(
  tx: Tx,
  id: number,
  v: { sealed: string; previousExpiresAt: Date | null },
): Promise<boolean> {
  const keep = v.previousExpiresAt !== null;
  const rows = await tx`
    update apps set
      callback_secret_previous_sealed = case when ${keep} then callback_secret_sealed end,
      callback_secret_previous_expires_at = ${v.previousExpiresAt},
      callback_secret_sealed = ${v.sealed},
      updated_at = now()
    where id = ${id} returning 1`;
  return rows.length > 0;
}
