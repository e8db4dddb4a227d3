/** SQL for bearer tokens (stored as SHA-256 hashes). */
import type { Tx } from "../mod.ts";

/** What a live token grants. */
export interface TokenGrantRow {
  clientId: string;
  clientDbId: number;
  scopes: string[];
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

/** Finds a token that is neither expired nor revoked. */
export async function findLiveToken(tx: Tx, tokenHash: string): Promise<TokenGrantRow | null> {
  const [row] = await tx<TokenGrantRow[]>`
    select c.client_id, c.id as client_db_id, t.scopes, t.expires_at
    from access_tokens t join api_clients c on c.id = t.client_id
    where t.token_hash = ${tokenHash} and t.revoked_at is null and t.expires_at > now()
  `;
  return row ?? null;
}

/** A live token with its issue time, read from the database (introspection skips the cache). */
export async function findLiveTokenDetails(
  tx: Tx,
  tokenHash: string,
): Promise<(TokenGrantRow & { createdAt: Date }) | null> {
  const [row] = await tx<(TokenGrantRow & { createdAt: Date })[]>`
    select c.client_id, c.id as client_db_id, t.scopes, t.expires_at, t.created_at
    from access_tokens t join api_clients c on c.id = t.client_id
    where t.token_hash = ${tokenHash} and t.revoked_at is null and t.expires_at > now()
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
