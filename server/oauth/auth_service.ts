/**
 * The auth service: issues, validates and revokes bearer tokens. Everything that checks a token
 * goes through here, so it could move out of process later. Validation results are cached in a
 * bounded LRU for `cacheSeconds`, so repeated requests with one token cost no database round
 * trip; a revocation in this process takes effect at once, in other processes within that window.
 */
import type { Sql } from "../../db/mod.ts";
import {
  deleteExpiredTokens,
  findLiveToken,
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
  scopes: string[];
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
      tokenHash: await sha256(accessToken),
      clientDbId,
      scopes,
      expiresAt,
    });
    return { accessToken, expiresIn: this.options.tokenTtlSeconds, scopes };
  }

  /** Returns what the token grants, or null when it is unknown, expired or revoked. */
  async validate(token: string): Promise<TokenInfo | null> {
    const hash = await sha256(token);
    const now = this.#now();
    const hit = this.#cache.get(hash);
    if (hit) {
      this.#cache.delete(hash);
      if (hit.cachedUntil > now && hit.info.expiresAt.getTime() > now) {
        this.#cache.set(hash, hit); // most recently used goes last
        return hit.info;
      }
    }
    const row = await findLiveToken(this.sql, hash);
    if (!row) return null;
    const info: TokenInfo = { ...row };
    if (this.options.cacheSeconds > 0) {
      this.#cache.set(hash, { info, cachedUntil: now + this.options.cacheSeconds * 1000 });
      while (this.#cache.size > this.#maxEntries) {
        this.#cache.delete(this.#cache.keys().next().value!);
      }
    }
    return info;
  }

  /** Revokes a token of the given client (RFC 7009); unknown tokens are ignored. */
  async revoke(token: string, clientDbId: number): Promise<void> {
    const hash = await sha256(token);
    const revoked = await revokeToken(this.sql, hash, clientDbId);
    if (revoked) this.#cache.delete(hash);
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

  /** Deletes long-expired token rows. */
  async purgeExpired(): Promise<number> {
    return await deleteExpiredTokens(this.sql);
  }
}
