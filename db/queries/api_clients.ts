/** SQL for REST API clients. */
import type { Tx } from "../mod.ts";

/** A stored API client; the secret is a hash. */
export interface ApiClientRow {
  id: number;
  clientId: string;
  secretHash: string;
  appId: number | null;
  scopes: string[];
  createdAt: Date;
  updatedAt: Date;
}

/** Inserts an app's API client. */
export async function insertAppClient(
  tx: Tx,
  values: { clientId: string; secretHash: string; appId: number; scopes: string[] },
): Promise<ApiClientRow> {
  const [row] = await tx<ApiClientRow[]>`
    insert into api_clients (client_id, secret_hash, app_id, scopes)
    values (${values.clientId}, ${values.secretHash}, ${values.appId}, ${values.scopes})
    returning *
  `;
  return row;
}

/** Creates or updates a client that belongs to no app (the bootstrap client). */
export async function upsertStandaloneClient(
  tx: Tx,
  values: { clientId: string; secretHash: string; scopes: string[] },
): Promise<ApiClientRow> {
  const [row] = await tx<ApiClientRow[]>`
    insert into api_clients (client_id, secret_hash, scopes)
    values (${values.clientId}, ${values.secretHash}, ${values.scopes})
    on conflict (client_id) do update set
      secret_hash = excluded.secret_hash,
      scopes = excluded.scopes,
      updated_at = now()
    returning *
  `;
  return row;
}

/** Finds a client by its public client id; `appEnabled` is false when its app is disabled. */
export async function findClient(
  tx: Tx,
  clientId: string,
): Promise<(ApiClientRow & { appEnabled: boolean }) | null> {
  const [row] = await tx<(ApiClientRow & { appEnabled: boolean })[]>`
    select c.*, coalesce(a.enabled, true) as app_enabled
    from api_clients c left join apps a on a.id = c.app_id
    where c.client_id = ${clientId}
  `;
  return row ?? null;
}

/** Finds the API client of an app. */
export async function findClientOfApp(tx: Tx, appId: number): Promise<ApiClientRow | null> {
  const [row] = await tx<ApiClientRow[]>`select * from api_clients where app_id = ${appId}`;
  return row ?? null;
}

/** Replaces a client's secret hash and revokes its live tokens. */
export async function replaceClientSecret(tx: Tx, id: number, secretHash: string): Promise<void> {
  await tx`update api_clients set secret_hash = ${secretHash}, updated_at = now() where id = ${id}`;
  await tx`
    update access_tokens set revoked_at = now()
    where client_id = ${id} and revoked_at is null and expires_at > now()
  `;
}

/** Replaces a client's allowed scopes. */
export async function updateClientScopes(tx: Tx, id: number, scopes: string[]): Promise<void> {
  await tx`update api_clients set scopes = ${scopes}, updated_at = now() where id = ${id}`;
}
