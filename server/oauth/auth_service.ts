/**
 * The auth service: issues, validates and revokes bearer tokens. Everything that checks a token
 * goes through here, so it could move out of process later. Validation results are cached in a
 * bounded LRU for `cacheSeconds`, so repeated requests with one token cost no database round
 * trip; a revocation in this process takes effect at once, in other processes within that window.
 */
import type { Sql } from "../../db/mod.ts";
import {
  findLiveToken,
  findLiveTokenDetails,
  insertToken,
  revokeToken,
} from "../../db/queries/access_tokens.ts";
import { encodeBase64Url } from "../crypto/base64.ts";
import { sha256 } from "../crypto/hashing.ts";
import { randomBytes } from "../crypto/random_token.ts";

/** What a valid token grants. */
export interface TokenInfo {
  clientId: string;
  clientDbId: number;
  /** The client's app (REST reads are limited to it unless the token has admin scope). */
  appId: number | null;
  scopes: string[];
  /** The client's current scopes (an admin client's tokens reach every app's data). */
  clientScopes: string[];
  expiresAt: Date;
}

/** A newly issued token. */
export interface IssuedToken {
  accessToken: string;
  expiresIn: number;
  scopes: string[];
}

interface CacheEntry {
  info: TokenInfo;
  cachedUntil: number;
}

/** Options of the auth service. */
export interface AuthServiceOptions {
  tokenTtlSeconds: number;
  cacheSeconds: number;
  maxEntries?: number;
  now?: () => number;
}

/** Issues and validates bearer tokens with a bounded validation cache. */
export class AuthService {
  #cache = new Map<string, CacheEntry>();
  #maxEntries: number;
  #now: () => number;

  constructor(private sql: Sql, private options: AuthServiceOptions) {
    this.#maxEntries = options.maxEntries ?? 10_000;
    this.#now = options.now ?? Date.now;
  }

  /** Issues a token for a client: 256 random bits, stored only as a SHA-256 hash. */
  async issue(clientDbId: number, scopes: string[]): Promise<IssuedToken> {
    const accessToken = encodeBase64Url(randomBytes(32));
    const expiresAt = new Date(this.#now() + this.options.tokenTtlSeconds * 1000);
    await insertToken(this.sql, {
      tokenHash: sha256(accessToken),
      clientDbId,
      scopes,
      expiresAt,
    });
    return { accessToken, expiresIn: this.options.tokenTtlSeconds, scopes };
  }

  /**
   * Returns what the token grants, or null when it is unknown, expired or revoked. The cache is
   * keyed by the token itself (in memory only, like the request that carried it), so a hit costs
   * no hashing and no database round trip; the database holds only SHA-256 hashes.
   */
  async validate(token: string): Promise<TokenInfo | null> {
    const now = this.#now();
    const hit = this.#cache.get(token);
    if (hit) {
      this.#cache.delete(token);
      if (hit.cachedUntil > now && hit.info.expiresAt.getTime() > now) {
        this.#cache.set(token, hit); // most recently used goes last
        return hit.info;
      }
    }
    const row = await findLiveToken(this.sql, sha256(token));
    if (!row) return null;
    const info: TokenInfo = { ...row };
    if (this.options.cacheSeconds > 0) {
      this.#cache.set(token, { info, cachedUntil: now + this.options.cacheSeconds * 1000 });
      while (this.#cache.size > this.#maxEntries) {
        this.#cache.delete(this.#cache.keys().next().value!);
      }
    }
    return info;
  }

  /**
   * RFC 7662 introspection, read from the database (not the cache): the token's grant and issue
   * time when it is live and `caller` may see it (its own token, or any token when the caller's
   * client may use the admin scope); otherwise null.
   */
  async introspect(
    token: string,
    caller: { id: number; scopes: string[] },
  ): Promise<(TokenInfo & { issuedAt: Date }) | null> {
    const row = await findLiveTokenDetails(this.sql, sha256(token));
    if (!row) return null;
    if (row.clientDbId !== caller.id && !caller.scopes.includes("admin")) return null;
    const { createdAt, ...info } = row;
    return { ...info, issuedAt: createdAt };
  }

  /** Revokes a token of the given client (RFC 7009); unknown tokens are ignored. */
  async revoke(token: string, clientDbId: number): Promise<void> {
    const hash = sha256(token);
    const revoked = await revokeToken(this.sql, hash, clientDbId);
    if (revoked) this.#cache.delete(token);
  }

  /** Drops cached validations of one client's tokens (after its secret rotates or it is deleted). */
  forgetClient(clientDbId: number): void {
    for (const [hash, entry] of this.#cache) {
      if (entry.info.clientDbId === clientDbId) this.#cache.delete(hash);
    }
  }

  /** Number of cached validations (for tests and metrics). */
  get cacheSize(): number {
    return this.#cache.size;
  }
}
