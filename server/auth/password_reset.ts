/**
 * The lost-password function (spec §5.4 step 2.4) for agents (portal) and administrators (admin
 * screens). A request always gets the same answer, in about the same time, whether the account
 * exists or not; for an existing account a link is mailed: a random 256-bit token stored as a
 * SHA-256 hash, single use, valid PASSWORD_RESET_TTL_MINUTES, voided by a newer request and by any
 * password change (it is bound to the password hash it was issued for). Using it sets the new
 * password, ends every login of the account, signs it in and mails a notification. An agent's
 * request may name an organization (only its agent of the e-mail gets a link); one that names
 * none mails one link per agent of the e-mail (each resets only its own account and names its
 * organization when there are several), so the answer never depends on how many there are.
 */
import { inTransaction, type Write } from "../transaction.ts";
import { queueMail } from "../mail/queue.ts";
import {
  insertReset,
  liveReset,
  type ResetAccount,
  resetAccounts,
  useReset,
} from "../../db/queries/password_resets.ts";
import { reserveAttempt } from "../../db/queries/sign_in_attempts.ts";
import { insertLogin } from "../../db/queries/logins.ts";
import { encodeBase64Url } from "../crypto/base64.ts";
import { hashPassword, sha256 } from "../crypto/hashing.ts";
import { randomBytes } from "../crypto/random_token.ts";
import type { Deps } from "../deps.ts";
import { passwordChangedMail, resetMail } from "../mail/templates.ts";
import { rateLimitKey } from "../http/rate_limit_key.ts";
import { MAX_SIGN_IN_CANDIDATES, namedOrganization, newLoginToken } from "./logins.ts";

/** Whose password: an agent's (portal) or an administrator's (admin screens). */
export type ResetRole = "agent" | "admin";

/** Requests per typed e-mail address, and per client address, before each waits longer. */
export const RESET_LIMITS = { perAccount: 3, perAddress: 20, windowSeconds: 3600 } as const;

/** The shortest and longest password (the admin-set rule). */
export const PASSWORD_LENGTH = { min: 12, max: 200 } as const;

/** A few passwords too common to allow, whatever their length. */
const COMMON = new Set([
  "123456789012",
  "password1234",
  "passwordpassword",
  "qwertyuiopas",
  "111111111111",
  "aaaaaaaaaaaa",
  "iloveyou1234",
  "letmein12345",
  "changeme1234",
  "administrator",
  "welcome12345",
]);

/** What a request came to: the same page either way, or a wait (rate limit). */
export type ResetRequestResult = { kind: "sent" } | { kind: "wait"; ms: number };

function fingerprint(passwordHash: string | null): string {
  return sha256(`password:${passwordHash ?? "none"}`);
}

/** A reset request: the typed e-mail and, for an agent, the organization slug the form named. */
export interface ResetRequest {
  email: string;
  role: ResetRole;
  address: string;
  linkBase: string;
  organization?: string | null;
}

/**
 * Handles "forgot my password" for `email`: for each account of `role` it names, stores a link
 * and queues the mail with it (`linkBase` + token). Rate-limited per typed address and per client
 * address (the limit never depends on whether an account exists, nor on the organization).
 */
export async function requestPasswordReset(
  deps: Deps,
  r: ResetRequest,
): Promise<ResetRequestResult> {
  // Every answer takes at least ANSWER_FLOOR_MS, so its time does not tell whether a link was
  // made (an account exists) or not.
  const floor = Date.now() + ANSWER_FLOOR_MS;
  const result = await requestOnce(deps, r);
  const wait = floor - Date.now();
  if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
  return result;
}

/** The shortest answer time of a reset request. */
export const ANSWER_FLOOR_MS = 250;

async function requestOnce(deps: Deps, r: ResetRequest): Promise<ResetRequestResult> {
  const email = r.email.trim().toLowerCase().slice(0, 320);
  const policy = {
    maxDelaySeconds: 3600,
    windowSeconds: RESET_LIMITS.windowSeconds,
  };
  const byAddress = await reserveAttempt(deps.sql, {
    account: `reset:${r.role}:*`,
    address: rateLimitKey(r.address),
  }, {
    ...policy,
    free: RESET_LIMITS.perAddress,
  });
  if (byAddress.waitMs > 0) return { kind: "wait", ms: byAddress.waitMs };
  const byAccount = await reserveAttempt(deps.sql, {
    account: `reset:${r.role}:${email}`,
    address: "*",
  }, {
    ...policy,
    free: RESET_LIMITS.perAccount,
  });
  if (byAccount.waitMs > 0) return { kind: "wait", ms: byAccount.waitMs };
  const organization = r.role === "agent" ? namedOrganization(r.organization) : null;
  const users = email && deps.mail
    ? await resetAccounts(deps.sql, {
      email,
      role: r.role,
      organization,
      limit: MAX_SIGN_IN_CANDIDATES,
    })
    : [];
  if (users.length === 0) return { kind: "sent" };
  // The organization is named when it tells the links apart, or when the request named it.
  const named = r.role === "agent" && (users.length > 1 || organization !== null);
  await inTransaction(deps, async (w) => {
    for (const user of users) await storeLink(w, deps, r.linkBase, user, named);
  });
  return { kind: "sent" };
}

/** Stores a new link for `user` and queues its mail. */
async function storeLink(
  w: Write,
  deps: Deps,
  linkBase: string,
  user: ResetAccount,
  nameOrganization: boolean,
): Promise<void> {
  const token = encodeBase64Url(randomBytes(32));
  const minutes = deps.config.passwordResetTtlMinutes;
  await insertReset(w.tx, {
    tokenHash: sha256(token),
    userId: user.id,
    passwordFingerprint: fingerprint(user.passwordHash),
    expiresAt: new Date(Date.now() + minutes * 60_000),
  });
  const organization = nameOrganization ? user.organizationName : undefined;
  await queueMail(w, resetMail(user, `${linkBase}/${token}`, minutes, organization));
}

/** The account of a live link (for the new-password form), or null when it is not usable. */
export async function resetLinkAccount(
  deps: Deps,
  token: string,
  role: ResetRole,
): Promise<{ email: string; locale: string | null } | null> {
  const found = await liveReset(deps.sql, sha256(token), role);
  if (!found || found.passwordFingerprint !== fingerprint(found.passwordHash)) return null;
  return { email: found.email, locale: found.locale };
}

/** Why a new password is refused. */
export type PasswordProblem = "too_short" | "too_long" | "too_common" | "contains_email";

/** What is wrong with a new password, or null. */
export function passwordProblem(password: string, email: string): PasswordProblem | null {
  if (password.length < PASSWORD_LENGTH.min) return "too_short";
  if (password.length > PASSWORD_LENGTH.max) return "too_long";
  const lower = password.toLowerCase();
  if (COMMON.has(lower) || new Set(lower).size < 4) return "too_common";
  const name = email.split("@")[0].toLowerCase();
  if (name.length >= 4 && lower.includes(name)) return "contains_email";
  return null;
}

/** The outcome of using a link. */
export type ResetResult =
  | { kind: "ok"; loginToken: string }
  | { kind: "invalid_link" }
  | { kind: "invalid_password"; problem: PasswordProblem };

/**
 * Sets the new password with the link `token`: refused when the link is unknown, used, expired,
 * superseded or older than the account's current password. On success every login of the account
 * ends (the users trigger), a new one is made, and the notification is queued.
 */
export async function resetPassword(
  deps: Deps,
  r: { token: string; role: ResetRole; password: string; loginHours: number },
): Promise<ResetResult> {
  const tokenHash = sha256(r.token);
  const login = newLoginToken(r.loginHours);
  const result = await inTransaction(deps, async (w): Promise<ResetResult> => {
    const tx = w.tx;
    const found = await liveReset(tx, tokenHash, r.role, true);
    if (!found || found.passwordFingerprint !== fingerprint(found.passwordHash)) {
      return { kind: "invalid_link" };
    }
    const problem = passwordProblem(r.password, found.email);
    if (problem) return { kind: "invalid_password", problem };
    await useReset(tx, {
      tokenHash,
      userId: found.userId,
      passwordHash: await hashPassword(r.password),
    });
    await insertLogin(tx, {
      tokenHash: login.tokenHash,
      userId: found.userId,
      expiresAt: login.expiresAt,
      kind: r.role === "admin" ? "admin" : "portal",
    });
    await queueMail(w, passwordChangedMail(found));
    return { kind: "ok", loginToken: login.token };
  });
  return result;
}
