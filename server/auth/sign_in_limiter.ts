/**
 * The password sign-in limiter of the portal and the admin screens, in PostgreSQL so that every
 * instance shares it. An attempt is reserved before the password is checked (parallel guesses
 * cannot all pass the check first), per (account, address) and per address. The account is the
 * typed e-mail, whatever organization the form names: naming other organizations buys no more
 * guesses, and the agents of one e-mail (one mailbox) share the count. Once the free attempts
 * are used, each failure doubles the wait before the next one (1 s, 2 s, 4 s ... up to 15
 * minutes) instead of locking the account, so an attacker cannot lock a real user out. Unknown
 * accounts and accounts without a password cost one PBKDF2 verification like the others.
 */
import type { Sql } from "../../db/mod.ts";
import { forgetAttempts, reserveAttempt } from "../../db/queries/sign_in_attempts.ts";
import { hashPassword } from "../crypto/hashing.ts";
import { randomBytes } from "../crypto/random_token.ts";
import { encodeBase64Url } from "../crypto/base64.ts";

/** How the limiter counts: free attempts per (account, address) and per address, and a window. */
export interface SignInLimits {
  perAccount: number;
  perAddress: number;
  windowMs: number;
}

/** The longest wait between two attempts. */
export const MAX_DELAY_SECONDS = 900;

/** Every address's attempts are also counted under this account name. */
const ANY_ACCOUNT = "*";

/**
 * Reserves an attempt for `account` from `address`: 0 when it may go ahead (it counts as a
 * failure until `signInSucceeded`), else the milliseconds to wait.
 */
export async function reserveSignIn(
  sql: Sql,
  limits: SignInLimits,
  account: string,
  address: string,
): Promise<number> {
  const windowSeconds = Math.ceil(limits.windowMs / 1000);
  const byAddress = await reserveAttempt(sql, { account: ANY_ACCOUNT, address }, {
    free: limits.perAddress,
    maxDelaySeconds: MAX_DELAY_SECONDS,
    windowSeconds,
  });
  if (byAddress.waitMs > 0) return byAddress.waitMs;
  const byAccount = await reserveAttempt(sql, { account, address }, {
    free: limits.perAccount,
    maxDelaySeconds: MAX_DELAY_SECONDS,
    windowSeconds,
  });
  return byAccount.waitMs;
}

/** Forgets the account's failures from this address after a successful sign-in. */
export async function signInSucceeded(sql: Sql, account: string, address: string): Promise<void> {
  await forgetAttempts(sql, { account, address });
}

let dummy: Promise<string> | undefined;

/** A PBKDF2 hash no password matches, verified against when the account has none. */
export function dummyPasswordHash(): Promise<string> {
  dummy ??= hashPassword(encodeBase64Url(randomBytes(24)));
  return dummy;
}
