/** SQL for bearer tokens (stored as SHA-256 hashes). */
import type { Tx } from "../mod.ts";

/**
 * What a live token grants: its scopes that the client still has (scopes removed from the client
 * since the token was issued no longer count), for a client whose app is enabled.
 */
export interface TokenGrantRow {
  clientId: string;
  clientDbId: number;
  /** The app the client belongs to; null for a standalone client (the bootstrap client). */
  appId: number | null;
  scopes: string[];
  /** What the client may use now (an admin client reaches every app's data). */
  clientScopes: string[];
  expiresAt: Date;
}

/** Stores a new token hash. */
export async function insertToken(
  tx: Tx,
  values: { tokenHash: string; clientDbId: number; scopes: string[]; expiresAt: Date },
): Promise<void> {
  await tx`
    insert into access_tokens (token_hash, client_id, scopes, expires_at)
    values (${values.tokenHash}, ${values.clientDbId}, ${values.scopes}, ${values.expiresAt})
  `;
}

/**
 * Authenticates a client and stores its new token in one statement: the token is written only
 * when `clientId`'s secret hash equals `secretHash` (the presented secret hashed with the stored
 * hash's salt), its app is enabled and, when `scopes` is given, the client may use all of them
 * (null: every scope the client has). Answers the token's scopes, or null when nothing was written
 * (the caller then takes the step-by-step path, which says why).
 */
export async function insertTokenForSecret(
  tx: Tx,
  values: {
    clientId: string;
    secretHash: string;
    scopes: string[] | null;
    tokenHash: string;
    expiresAt: Date;
  },
): Promise<{ scopes: string[] } | null> {
  const [row] = await tx<{ scopes: string[] }[]>`
    with client as (
      select c.id, c.scopes from api_clients c left join apps a on a.id = c.app_id
      where c.client_id = ${values.clientId} and c.secret_hash = ${values.secretHash}
        and coalesce(a.enabled, true)
        and (${values.scopes}::text[] is null or c.scopes @> ${values.scopes}::text[])
    )
    insert into access_tokens (token_hash, client_id, scopes, expires_at)
    select ${values.tokenHash}, id, coalesce(${values.scopes}::text[], scopes), ${values.expiresAt}
    from client
    returning scopes
  `;
  return row ?? null;
}

/** Finds a token that is neither expired nor revoked. */
export async function findLiveToken(tx: Tx, tokenHash: string): Promise<TokenGrantRow | null> {
  const [row] = await tx<TokenGrantRow[]>`
    select ${grantColumns(tx)}
    from access_tokens t join api_clients c on c.id = t.client_id
      left join apps a on a.id = c.app_id
    where t.token_hash = ${tokenHash} and t.revoked_at is null and t.expires_at > now()
      and (c.app_id is null or a.enabled)
  `;
  return row ?? null;
}

/** The grant of a token row `t` of client `c`: its scopes intersected with the client's. */
function grantColumns(tx: Tx) {
  return tx`c.client_id, c.id as client_db_id, c.app_id,
    array(select s from unnest(t.scopes) s where s = any(c.scopes)) as scopes,
    c.scopes as client_scopes, t.expires_at`;
}

/** A live token with its issue time, read from the database (introspection skips the cache). */
export async function findLiveTokenDetails(
  tx: Tx,
  tokenHash: string,
): Promise<(TokenGrantRow & { createdAt: Date }) | null> {
  const [row] = await tx<(TokenGrantRow & { createdAt: Date })[]>`
    select ${grantColumns(tx)}, t.created_at
    from access_tokens t join api_clients c on c.id = t.client_id
      left join apps a on a.id = c.app_id
    where t.token_hash = ${tokenHash} and t.revoked_at is null and t.expires_at > now()
      and (c.app_id is null or a.enabled)
  `;
  return row ?? null;
}

/** Revokes a token if it belongs to the given client; true when a live token was revoked. */
export async function revokeToken(tx: Tx, tokenHash: string, clientDbId: number) {
  const rows = await tx`
    update access_tokens set revoked_at = now()
    where token_hash = ${tokenHash} and client_id = ${clientDbId} and revoked_at is null
    returning token_hash
  `;
  return rows.length > 0;
}

/** Deletes tokens that expired more than a day ago; returns how many. */
export async function deleteExpiredTokens(tx: Tx): Promise<number> {
  const rows = await tx`
    delete from access_tokens where expires_at < now() - interval '1 day' returning 1
  `;
  return rows.length;
}
