/**
 * Replay protection of a signed request (pure: no I/O). An app's policy decides whether
 * `issuedAt` is required (and under `required` a `nonce` too); when it is given it must be within
 * the app's window, and the request is single-use for that window: its `nonce`, or the bytes of
 * its signature when it has none (however they are spelled), is the replay key the flow stores
 * (launch_nonces) in the launch's own transaction.
 */
import { AppError } from "../http/errors.ts";
import { FRESHNESS, type ReplayPolicy } from "./contract.ts";

/** How a launch was protected, as the launch log records it. */
export type Protection = "protected" | "unprotected" | "off";

/** The outcome of the check: how the launch is protected, and what to store against replays. */
export interface FreshnessOutcome {
  protection: Protection;
  /** Stored once per app until `expiresAt`; null when the launch is not protected. */
  replay: { key: string; expiresAt: Date } | null;
}

/** The policy and window of an app. */
export interface FreshnessPolicy {
  replayProtection: ReplayPolicy;
  maxAgeSeconds: number;
}

/**
 * Checks `issuedAt` against the app's policy at `now`. Throws 401 `issued_at_required`,
 * `launch_expired` or `launch_not_yet_valid`, each saying what to do.
 */
export function checkFreshness(
  policy: FreshnessPolicy,
  fields: { issuedAt: Date | null; nonce: string | null },
  signature: string,
  now: Date,
): FreshnessOutcome {
  if (policy.replayProtection === "off") return { protection: "off", replay: null };
  const { issuedAt, nonce } = fields;
  if (!issuedAt) {
    if (policy.replayProtection === "optional") return { protection: "unprotected", replay: null };
    throw new AppError(
      401,
      "issued_at_required",
      "This app requires issuedAt (Unix time) and a nonce at the payload's top level: sign each " +
        'launch when the agent clicks, e.g. {"algorithm": ..., "issuedAt": <now>, ' +
        '"nonce": <random>, "context": ...}',
    );
  }
  if (!nonce && policy.replayProtection === "required") {
    throw new AppError(
      400,
      "nonce_required",
      "This app requires a nonce beside issuedAt: a random string (e.g. 16 random bytes in hex) " +
        "at the payload's top level, new for each launch",
      [{
        path: "nonce",
        code: "required",
        message: "required when the app's replay protection is required",
      }],
    );
  }
  const ageSeconds = (now.getTime() - issuedAt.getTime()) / 1000;
  if (ageSeconds > policy.maxAgeSeconds) {
    throw new AppError(
      401,
      "launch_expired",
      `This signed request was issued ${Math.round(ageSeconds)} s ago, more than the app's ` +
        `${policy.maxAgeSeconds} s: sign a new one for each launch (and check the host's clock)`,
    );
  }
  if (-ageSeconds > FRESHNESS.maxFutureSkewSeconds) {
    throw new AppError(
      401,
      "launch_not_yet_valid",
      `issuedAt is ${Math.round(-ageSeconds)} s in the future (at most ` +
        `${FRESHNESS.maxFutureSkewSeconds} s allowed): correct the sender's clock, or send ` +
        "issuedAt in seconds (or milliseconds) since 1970",
    );
  }
  return {
    protection: "protected",
    replay: {
      key: nonce ?? `sig:${signature}`,
      // Kept until no copy of the request can be fresh again: the window plus the future skew.
      expiresAt: new Date(
        issuedAt.getTime() + (policy.maxAgeSeconds + FRESHNESS.maxFutureSkewSeconds) * 1000,
      ),
    },
  };
}

/** The refusal of a request whose replay key was already used. */
export function replayed(): AppError {
  return new AppError(
    401,
    "launch_replayed",
    "This signed request was already used: each launch needs a newly signed request " +
      "(a new nonce). Sign it when the agent clicks, not when the page loads",
  );
}
