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
  insertTokensForSecrets,
  revokeToken,
  type TokenForSecret,
} from "../../db/queries/access_tokens.ts";
import { DatabaseUnavailableError, isDatabaseUnavailable, sqlState } from "../../db/errors.ts";
import { Batcher } from "../batcher.ts";
import { bindToTrace } from "../observability/tracing.ts";
import { isScope } from "./scopes.ts";
import { encodeBase64Url } from "../crypto/base64.ts";
import { hashSecret, secretSalt, sha256 } from "../crypto/hashing.ts";
import { randomBytes } from "../crypto/random_token.ts";
import { setBounded } from "../bounded_map.ts";

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
  /** Token inserts in flight at most; the requests that come meanwhile share the next one. */
  issueConcurrency?: number;
  /** How long a token request may wait for an insert (the pool's acquire timeout): then 503. */
  issueWaitMs?: number;
}

/** Token requests one insert carries at most. */
const ISSUE_BATCH = 64;

/** An error one request of a shared insert may cause alone: a constraint, a conflict, a lock. */
function oneRequestsError(err: unknown): boolean {
  const code = sqlState(err) ?? "";
  return code.startsWith("23") || code.startsWith("40") || code === "55P03";
}

/** Hashes a presented secret when its client's salt is not known (nothing matches it). */
const UNKNOWN_SALT = "unknown-client";

/** Issues and validates bearer tokens with a bounded validation cache. */
export class AuthService {
  #cache = new Map<string, CacheEntry>();
  /** The salt of each recently authenticated client's secret hash (public id -> salt). */
  #salts = new Map<string, string>();
  #maxEntries: number;
  #now: () => number;

  #issues: Batcher<TokenForSecret, { scopes: string[] } | null>;

  constructor(private sql: Sql, private options: AuthServiceOptions) {
    this.#maxEntries = options.maxEntries ?? 10_000;
    this.#now = options.now ?? Date.now;
    const waitMs = options.issueWaitMs ?? 5_000;
    this.#issues = new Batcher((requests) => insertTokensForSecrets(sql, requests), {
      concurrency: options.issueConcurrency ?? 2,
      maxBatch: ISSUE_BATCH,
      retryAlone: oneRequestsError,
      failsWaiting: isDatabaseUnavailable,
      maxWaitMs: waitMs,
      waitExpired: () => new DatabaseUnavailableError(`No token insert within ${waitMs} ms`),
      bind: bindToTrace,
    });
  }

  /** Issues a token for a client: 256 random bits, stored only as a SHA-256 hash. */
  async issue(clientDbId: number, scopes: string[]): Promise<IssuedToken> {
    const { accessToken, tokenHash, expiresAt } = this.#newToken();
    await insertToken(this.sql, { tokenHash, clientDbId, scopes, expiresAt });
    return { accessToken, expiresIn: this.options.tokenTtlSeconds, scopes };
  }

  /**
   * Token issuance in one statement for a client authenticated before: the presented secret is
   * hashed with the salt of the client's stored hash (remembered from its last authentication)
   * and the token stored only when the database holds that hash (an equality of SHA-256 outputs,
   * which tells nothing usable about the secret). Answers null when nothing was issued (unknown
   * salt, wrong secret, disabled app, scope not allowed, secret replaced): the caller then
   * authenticates step by step, which refuses with the reason or succeeds and calls
   * `rememberSalt`. An unknown client goes through the same two steps, so both fail alike.
   * Requests that come while earlier inserts are in flight share the next one (one statement and
   * one commit for all of them: `Batcher`).
   */
  async issueForSecret(
    clientId: string,
    secret: string,
    scopes: string[] | null,
  ): Promise<IssuedToken | null> {
    // The shared insert sends scopes space-separated: refuse what is no known scope (none holds
    // a space) before it could split, or fail a statement others share (routes.ts checks first).
    if (scopes?.some((scope) => !isScope(scope))) {
      throw new RangeError(`not a known scope: ${JSON.stringify(scopes)}`);
    }
    const { accessToken, tokenHash, expiresAt } = this.#newToken();
    const row = await this.#issues.submit({
      clientId,
      secretHash: hashSecret(secret, this.#salts.get(clientId) ?? UNKNOWN_SALT),
      scopes,
      tokenHash,
      expiresAt,
    });
    if (!row) return null;
    return { accessToken, expiresIn: this.options.tokenTtlSeconds, scopes: row.scopes };
  }

  /** Remembers the salt of a client's secret hash after it authenticated. */
  rememberSalt(clientId: string, secretHash: string): void {
    const salt = secretSalt(secretHash);
    if (salt) setBounded(this.#salts, clientId, salt, this.#maxEntries);
  }

  #newToken(): { accessToken: string; tokenHash: string; expiresAt: Date } {
    const accessToken = encodeBase64Url(randomBytes(32));
    return {
      accessToken,
      tokenHash: sha256(accessToken),
      expiresAt: new Date(this.#now() + this.options.tokenTtlSeconds * 1000),
    };
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
      setBounded(this.#cache, token, {
        info,
        cachedUntil: now + this.options.cacheSeconds * 1000,
      }, this.#maxEntries);
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
