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

/** One client's token request for `insertTokensForSecrets`. */
export interface TokenForSecret {
  clientId: string;
  /** The presented secret hashed with the salt of the client's stored hash. */
  secretHash: string;
  /** The scopes asked for (RFC 6749 scope-tokens: no space), or null for all the client has. */
  scopes: string[] | null;
  tokenHash: string;
  expiresAt: Date;
}

/**
 * Authenticates clients and stores their new tokens in one statement, however many requests it
 * carries: a request's token is written only when its client's secret hash equals `secretHash`,
 * its app is enabled and, when `scopes` is given, the client may use all of them. Answers, in the
 * order of `requests`, each token's scopes, or null where nothing was written (the caller then
 * takes the step-by-step path, which says why).
 */
export async function insertTokensForSecrets(
  tx: Tx,
  requests: TokenForSecret[],
): Promise<({ scopes: string[] } | null)[]> {
  // Scopes travel space-separated (OAuth's own syntax: a scope never holds a space), since an
  // array of arrays of different lengths is not a PostgreSQL array. The clients' rows are read
  // FOR SHARE SKIP LOCKED: a client whose row another transaction is changing (its secret being
  // replaced, its app deleted) gets null at once and takes the step-by-step path alone, which
  // waits for that change, instead of holding up every request of the statement or answering
  // from the row as it was. (KEY SHARE, the foreign key's lock, still waits on a row a non-key
  // update changed and a delete then holds.)
  const clientIds = requests.map((r) => r.clientId);
  const rows = await tx<{ tokenHash: string; scopes: string[] }[]>`
    insert into access_tokens (token_hash, client_id, scopes, expires_at)
    select r.token_hash, c.id, coalesce(string_to_array(r.scopes, ' '), c.scopes), r.expires_at
    from unnest(
        ${clientIds}::text[], ${requests.map((r) => r.secretHash)}::text[],
        ${requests.map((r) => r.scopes?.join(" ") ?? null)}::text[],
        ${requests.map((r) => r.tokenHash)}::text[],
        ${requests.map((r) => r.expiresAt.toISOString())}::timestamptz[]
      ) as r(client_id, secret_hash, scopes, token_hash, expires_at)
      join (
        select id, client_id, secret_hash, scopes, app_id from api_clients
        where client_id = any(${clientIds}::text[])
        for share skip locked
      ) c on c.client_id = r.client_id and c.secret_hash = r.secret_hash
      left join apps a on a.id = c.app_id
    where coalesce(a.enabled, true)
      and (r.scopes is null or c.scopes @> string_to_array(r.scopes, ' '))
    returning token_hash, scopes
  `;
  const written = new Map(rows.map((row) => [row.tokenHash, row.scopes]));
  return requests.map((r) => {
    const scopes = written.get(r.tokenHash);
    return scopes ? { scopes } : null;
  });
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
