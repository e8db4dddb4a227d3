/**
 * Logins shared by the agent portal and the admin screens: a random token in a cookie, stored
 * as a SHA-256 hash; the CSRF token derived from it; and password sign-in with failed attempts
 * limited per account and per address.
 */
import type { Context } from "hono";
import {
  findLogin,
  insertLogin,
  type LoginRow,
  userForPasswordLogin,
} from "../../db/queries/logins.ts";
import { encodeBase64Url } from "../crypto/base64.ts";
import { sha256, timingSafeEqual, verifyPassword } from "../crypto/hashing.ts";
import { randomBytes } from "../crypto/random_token.ts";
import type { Deps } from "../deps.ts";
import {
  dummyPasswordHash,
  reserveSignIn,
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

/** What a sign-in attempt came to. */
export type SignInResult =
  | { kind: "ok"; token: string }
  | { kind: "refused" }
  | { kind: "wait"; ms: number };

/**
 * Password sign-in for one role. Each attempt is reserved in the shared limiter before the
 * password is checked (sign_in_limiter.ts); every refused attempt costs one PBKDF2 verification,
 * known account or not, so the answer time does not tell which accounts exist.
 */
export class PasswordSignIn {
  /** Password verifications run so far (the limiter's tests count them). */
  evaluations = 0;

  constructor(
    private role: "agent" | "admin",
    private hours: number,
    private limits: SignInLimits,
  ) {}

  /** Checks the password and, when it is right, stores a new login and returns its token. */
  async attempt(
    deps: Deps,
    a: { email: string; password: string; address: string },
  ): Promise<SignInResult> {
    const account = a.email.trim().toLowerCase().slice(0, 320);
    const wait = await reserveSignIn(deps.sql, this.limits, account, a.address);
    if (wait > 0) return { kind: "wait", ms: wait };
    const user = account ? await userForPasswordLogin(deps.sql, account, this.role) : null;
    const stored = user?.passwordHash?.startsWith("pbkdf2-sha256$")
      ? user.passwordHash
      : await dummyPasswordHash();
    this.evaluations++;
    const matches = await verifyPassword(a.password, stored);
    if (!user || !matches || !a.password || stored !== user.passwordHash) {
      return { kind: "refused" };
    }
    await signInSucceeded(deps.sql, account, a.address);
    const login = newLoginToken(this.hours);
    await insertLogin(deps.sql, {
      tokenHash: login.tokenHash,
      userId: user.id,
      expiresAt: login.expiresAt,
      kind: this.role === "admin" ? "admin" : "portal",
    });
    return { kind: "ok", token: login.token };
  }
}
