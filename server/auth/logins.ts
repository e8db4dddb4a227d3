/**
 * Logins shared by the agent portal and the admin screens: a random token in a cookie, stored
 * as a SHA-256 hash; the CSRF token derived from it; and password sign-in with failed attempts
 * limited per account and per address. An agent signs in within an organization (docs/portal.md,
 * "Sign-in"): the one named, or the one whose agent of that e-mail the password is right for.
 */
import type { Context } from "hono";
import {
  findLogin,
  insertLogin,
  type LoginRow,
  type SignInCandidate,
  signInCandidates,
} from "../../db/queries/logins.ts";
import { encodeBase64Url } from "../crypto/base64.ts";
import { sha256, timingSafeEqual, verifyPassword } from "../crypto/hashing.ts";
import { randomBytes } from "../crypto/random_token.ts";
import type { Deps } from "../deps.ts";
import {
  dummyPasswordHash,
  reserveSignIn,
  signInFaulted,
  type SignInLimits,
  signInSucceeded,
} from "./sign_in_limiter.ts";
import { ADMIN_COOKIE, loginCookieValue } from "./cookies.ts";

/** A new login token: 256 random bits, its hash (stored) and its expiry. */
export function newLoginToken(
  hours: number,
): { token: string; tokenHash: string; expiresAt: Date } {
  const token = encodeBase64Url(randomBytes(32));
  return {
    token,
    tokenHash: sha256(token),
    expiresAt: new Date(Date.now() + hours * 3_600_000),
  };
}

/** The login of a cookie, with the token's hash and the CSRF token its forms carry. */
export interface Login extends LoginRow {
  tokenHash: string;
  csrf: string;
}

/**
 * The live login named by the cookie `cookie`, or null. `purpose` keeps the CSRF tokens of
 * different cookies apart; the token is derived from the secret cookie value, so no page can
 * guess it.
 */
export async function loginOfCookie(
  deps: Deps,
  c: Context,
  cookie: string,
  purpose: string,
): Promise<Login | null> {
  const token = loginCookieValue(c, cookie);
  if (!token) return null;
  const tokenHash = sha256(token);
  // A login is accepted only by its own cookie: a portal token in the admin cookie is no login.
  const row = await findLogin(deps.sql, tokenHash, cookie === ADMIN_COOKIE ? "admin" : "portal");
  if (!row) return null;
  return { ...row, tokenHash, csrf: (sha256(`${purpose}:${token}`)).slice(0, 32) };
}

/** True when a posted form carries the CSRF token of the login. */
export function csrfMatches(login: { csrf: string }, sent: unknown): boolean {
  return typeof sent === "string" && timingSafeEqual(sent, login.csrf);
}

/**
 * What a sign-in attempt came to. `choose_organization`: the password is right for agents of
 * several organizations and the form named none (only an agent's sign-in can answer it).
 */
export type SignInResult =
  | { kind: "ok"; token: string }
  | { kind: "refused" }
  | { kind: "wait"; ms: number }
  | { kind: "choose_organization" };

/** The most agents of one e-mail a sign-in that names no organization checks the password of. */
export const MAX_SIGN_IN_CANDIDATES = 5;

/**
 * The organization slug a sign-in form named, normalized, or null when it named none. A value
 * that is no valid slug stays as typed (shortened): it names an organization that does not exist.
 */
export function namedOrganization(typed: unknown): string | null {
  return typeof typed === "string" ? typed.trim().toLowerCase().slice(0, 64) || null : null;
}

/**
 * Password sign-in for one role. Each attempt is reserved in the shared limiter before the
 * password is checked (sign_in_limiter.ts), keyed by the typed e-mail whatever the organization;
 * the password is verified (PBKDF2) against every account it may be for, in parallel, and against
 * a dummy hash when there is none, so a refusal costs one verification, known account or not,
 * and the answer time does not tell which accounts exist. An agent's e-mail with accounts in
 * several organizations costs one verification per account when the form names no organization.
 */
export class PasswordSignIn {
  /** Password verifications run so far (the limiter's tests count them). */
  evaluations = 0;

  constructor(
    private role: "agent" | "admin",
    private hours: number,
    private limits: SignInLimits,
  ) {}

  /**
   * Checks the password and, when it is right for exactly one account, stores a new login for
   * it and returns its token. `organization` (an agent's only) is the slug the form named.
   */
  async attempt(
    deps: Deps,
    a: { email: string; password: string; address: string; organization?: string | null },
  ): Promise<SignInResult> {
    const account = a.email.trim().toLowerCase().slice(0, 320);
    const { waitMs, reserved } = await reserveSignIn(deps.sql, this.limits, account, a.address);
    if (!reserved) return { kind: "wait", ms: waitMs };
    try {
      const candidates = account
        ? await signInCandidates(deps.sql, {
          email: account,
          role: this.role,
          organization: this.role === "agent" ? namedOrganization(a.organization) : null,
          limit: MAX_SIGN_IN_CANDIDATES,
        })
        : [];
      const verified = await this.verified(a.password, candidates);
      // A refusal stays counted; any other outcome gives its reservations back.
      if (verified.length === 0) return { kind: "refused" };
      const result: SignInResult = verified.length > 1
        ? { kind: "choose_organization" }
        : { kind: "ok", token: await this.newLogin(deps, verified[0]) };
      await signInSucceeded(deps.sql, reserved);
      return result;
    } catch (err) {
      // The service failed (the answer is a 5xx): not the client's failure.
      await signInFaulted(deps.sql, reserved);
      throw err;
    }
  }

  /** Stores a new login for `user`; returns its token. */
  private async newLogin(deps: Deps, user: SignInCandidate): Promise<string> {
    const login = newLoginToken(this.hours);
    await insertLogin(deps.sql, {
      tokenHash: login.tokenHash,
      userId: user.id,
      expiresAt: login.expiresAt,
      kind: this.role === "admin" ? "admin" : "portal",
    });
    return login.token;
  }

  /** The candidates `password` is right for: one verification each, or one dummy for none. */
  private async verified(
    password: string,
    candidates: SignInCandidate[],
  ): Promise<SignInCandidate[]> {
    const dummy = await dummyPasswordHash();
    const checks = candidates.length ? candidates : [null];
    this.evaluations += checks.length;
    const results = await Promise.all(checks.map(async (candidate) => {
      const own = candidate?.passwordHash?.startsWith("pbkdf2-sha256$")
        ? candidate.passwordHash
        : null;
      const matches = await verifyPassword(password, own ?? dummy);
      return candidate && own && matches && password ? candidate : null;
    }));
    return results.filter((c): c is SignInCandidate => c !== null);
  }
}
