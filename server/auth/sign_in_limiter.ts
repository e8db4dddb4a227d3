/**
 * The password sign-in limiter of the portal and the admin screens, in PostgreSQL so that every
 * instance shares it. An attempt is reserved before the password is checked (parallel guesses
 * cannot all pass the check first), per (account, address) and per address (server/http/
 * rate_limit_key.ts: IPv6 by its /64), and for IPv6 per (account, /48) too. The account is the
 * typed e-mail, whatever organization the form names: naming other organizations buys no more
 * guesses, and the agents of one e-mail (one mailbox) share the count. Once the free attempts
 * are used, each failure doubles the wait before the next one (1 s, 2 s, 4 s ... up to 15
 * minutes) instead of locking the account, so an attacker cannot lock a real user out. Unknown
 * accounts and accounts without a password cost one PBKDF2 verification like the others.
 *
 * Only failures the client caused stay counted. A success gives its address attempt back and
 * forgets its own (account, address) key, nothing else: the agents behind one office's address
 * do not use up each other's budget, and one agent's success does not wipe the failures another
 * account collected there. An attempt the service failed (a database error: a 5xx) gives all
 * back, and so do the attempts of a try that had to wait (no password was checked).
 */
import type { Sql } from "../../db/mod.ts";
import {
  type AttemptPolicy,
  forgetAttempts,
  giveBackAttempt,
  type Reservation,
  reserveAttempt,
} from "../../db/queries/sign_in_attempts.ts";
import { hashPassword } from "../crypto/hashing.ts";
import { randomBytes } from "../crypto/random_token.ts";
import { encodeBase64Url } from "../crypto/base64.ts";
import { log } from "../log.ts";
import { networkKey, rateLimitKey } from "../http/rate_limit_key.ts";

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
 * An account's failures from one IPv6 /48 (a site: 65,536 /64s, each with its own count) are
 * counted too, with this many times the free attempts of one address: a guesser who takes a new
 * /64 for each round gains a few rounds, not 65,536; another site's user is never slowed.
 */
export const NETWORK_FREE_FACTOR = 4;

/** An attempt reserved under both keys, to settle once its outcome is known. */
export interface ReservedSignIn {
  account: string;
  address: string;
  limits: SignInLimits;
  byAddress: Reservation;
  byAccount: Reservation;
  /** The account's attempt counted for its IPv6 /48, and that /48's key (null for IPv4). */
  byNetwork: { address: string; reservation: Reservation } | null;
}

function policy(limits: SignInLimits, free: number): AttemptPolicy {
  return {
    free,
    maxDelaySeconds: MAX_DELAY_SECONDS,
    windowSeconds: Math.ceil(limits.windowMs / 1000),
  };
}

/** Gives back one reservation; a failure to do so is logged (the service is failing already). */
async function giveBack(
  sql: Sql,
  key: { account: string; address: string },
  reservation: Reservation,
  p: AttemptPolicy,
): Promise<void> {
  try {
    await giveBackAttempt(sql, key, reservation, p);
  } catch (err) {
    log.warn("sign-in limiter: an attempt could not be given back", {
      error: err instanceof Error ? err.message : String(err),
    });
  }
}

/**
 * Reserves an attempt for `account` from `address`: the reservation when it may go ahead (it
 * counts as a failure until settled by `signInSucceeded` or `signInFaulted`), else the
 * milliseconds to wait.
 */
export async function reserveSignIn(
  sql: Sql,
  limits: SignInLimits,
  account: string,
  clientAddress: string,
): Promise<{ waitMs: number; reserved: null } | { waitMs: 0; reserved: ReservedSignIn }> {
  // Counted under its rate-limit key: an IPv6 client is its /64, whichever address it takes.
  const address = rateLimitKey(clientAddress);
  const addressKey = { account: ANY_ACCOUNT, address };
  const addressPolicy = policy(limits, limits.perAddress);
  const byAddress = await reserveAttempt(sql, addressKey, addressPolicy);
  if (!byAddress.reservation) return { waitMs: byAddress.waitMs, reserved: null };
  let byAccount;
  try {
    byAccount = await reserveAttempt(sql, { account, address }, policy(limits, limits.perAccount));
  } catch (err) {
    await giveBack(sql, addressKey, byAddress.reservation, addressPolicy);
    throw err;
  }
  if (!byAccount.reservation) {
    // No password is checked: no failure from this address.
    await giveBack(sql, addressKey, byAddress.reservation, addressPolicy);
    return { waitMs: byAccount.waitMs, reserved: null };
  }
  const reserved: ReservedSignIn = {
    account,
    address,
    limits,
    byAddress: byAddress.reservation,
    byAccount: byAccount.reservation,
    byNetwork: null,
  };
  const network = networkKey(address);
  if (network) {
    let byNetwork;
    try {
      byNetwork = await reserveAttempt(sql, { account, address: network }, networkPolicy(limits));
    } catch (err) {
      await signInFaulted(sql, reserved);
      throw err;
    }
    if (!byNetwork.reservation) {
      await signInFaulted(sql, reserved); // no password is checked: both given back
      return { waitMs: byNetwork.waitMs, reserved: null };
    }
    reserved.byNetwork = { address: network, reservation: byNetwork.reservation };
  }
  return { waitMs: 0, reserved };
}

function networkPolicy(limits: SignInLimits): AttemptPolicy {
  return policy(limits, limits.perAccount * NETWORK_FREE_FACTOR);
}

/** Gives back the account's attempt counted for its /48, when there is one. */
async function giveBackNetwork(sql: Sql, reserved: ReservedSignIn): Promise<void> {
  if (!reserved.byNetwork) return;
  const { address, reservation } = reserved.byNetwork;
  const key = { account: reserved.account, address };
  await giveBack(sql, key, reservation, networkPolicy(reserved.limits));
}

/**
 * After a successful sign-in: forgets the account's failures from this address and gives the
 * address its attempt back (and the account's /48 this one). Other accounts' failures at the
 * address stay, and so do the account's failures from other /64s of its /48.
 */
export async function signInSucceeded(sql: Sql, reserved: ReservedSignIn): Promise<void> {
  await forgetAttempts(sql, { account: reserved.account, address: reserved.address });
  await giveBackNetwork(sql, reserved);
  await giveBack(
    sql,
    { account: ANY_ACCOUNT, address: reserved.address },
    reserved.byAddress,
    policy(reserved.limits, reserved.limits.perAddress),
  );
}

/** After an attempt the service failed (it answers 5xx): gives back every reservation. */
export async function signInFaulted(sql: Sql, reserved: ReservedSignIn): Promise<void> {
  const { account, address, limits } = reserved;
  await giveBackNetwork(sql, reserved);
  await giveBack(sql, { account, address }, reserved.byAccount, policy(limits, limits.perAccount));
  await giveBack(
    sql,
    { account: ANY_ACCOUNT, address },
    reserved.byAddress,
    policy(limits, limits.perAddress),
  );
}

let dummy: Promise<string> | undefined;

/** A PBKDF2 hash no password matches, verified against when the account has none. */
export function dummyPasswordHash(): Promise<string> {
  dummy ??= hashPassword(encodeBase64Url(randomBytes(24)));
  return dummy;
}
