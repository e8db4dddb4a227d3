/**
 * Too many failures from one client address: after LAUNCH_FAILURES_PER_MINUTE failed launches (or
 * TOKEN_FAILURES_PER_MINUTE failed requests to the OAuth token, revocation and introspection
 * endpoints, counted together) within a minute, the address gets 429 with Retry-After until the
 * oldest failure leaves the window. Only failures the client caused count: a 4xx answer, but not
 * the 429 of the limit itself and never a 5xx (the service's fault must not lock addresses out).
 * The counts live in each process, so N processes allow up to N times the limit.
 */
import type { Context, MiddlewareHandler } from "hono";
import { AppError } from "./errors.ts";
import { rateLimitKey } from "./rate_limit_key.ts";
import { setBounded } from "../bounded_map.ts";

/**
 * Failure times a limiter keeps in all, whatever its limit, and addresses at most: at most about
 * 6 MB of memory per limiter (measured: test/server/http/rate_limit_key_test.ts).
 */
export const MAX_KEPT_FAILURES = 200_000;
/** Addresses a limiter keeps at most; past its bound, the one that failed least recently goes. */
export const MAX_TRACKED_ADDRESSES = 20_000;

/**
 * Counts failures per client address (its rate-limit key: an IPv6 client's /64) in a sliding
 * window; blocks an address after `max` failures. Only an address's last `max` failure times
 * are kept (the decision needs no more), and at most MAX_KEPT_FAILURES times in all, so no
 * number of addresses or of parallel failures grows it past a few megabytes.
 */
export class FailureLimiter {
  #failures = new Map<string, number[]>();
  /** Addresses kept at most: MAX_KEPT_FAILURES shared out by `max`, up to MAX_TRACKED_ADDRESSES. */
  readonly capacity: number;

  constructor(
    private max: number,
    private windowMs: number,
    private now: () => number = Date.now,
  ) {
    this.capacity = Math.max(
      1,
      Math.min(MAX_TRACKED_ADDRESSES, Math.floor(MAX_KEPT_FAILURES / max)),
    );
  }

  /**
   * Milliseconds until `address` may try again (the oldest of its last `max` failures leaves
   * the window), or 0 when it may now.
   */
  retryAfter(address: string | null): number {
    if (this.#failures.size === 0) return 0; // the usual case: no address to key
    const times = this.#failures.get(rateLimitKey(address));
    if (!times || times.length < this.max) return 0;
    return Math.max(0, times[0] + this.windowMs - this.now());
  }

  /** Records a failure from `address`. */
  fail(address: string | null): void {
    const key = rateLimitKey(address);
    const times = this.#failures.get(key) ?? [];
    times.push(this.now());
    if (times.length > this.max) times.splice(0, times.length - this.max);
    // The bound drops the address that failed least recently, never one failing now.
    setBounded(this.#failures, key, times, this.capacity);
  }

  /** Addresses with failures kept, and the failure times kept in all (tests). */
  get kept(): { addresses: number; failures: number } {
    let failures = 0;
    for (const times of this.#failures.values()) failures += times.length;
    return { addresses: this.#failures.size, failures };
  }
}

/** Throws 429 `too_many_failures` when `address` failed too often lately. */
export function refuseWhenFailingTooOften(
  limiter: FailureLimiter,
  address: string | null,
  what: string,
): void {
  const ms = limiter.retryAfter(address);
  if (ms <= 0) return;
  const seconds = Math.ceil(ms / 1000);
  throw new AppError(
    429,
    "too_many_failures",
    `Too many failed ${what} from your address: try again in ${seconds} s`,
    undefined,
    { "Retry-After": String(seconds) },
  );
}

/** True when an answer with `status` is a failure the client caused: 4xx other than 429. */
export function clientCausedFailure(status: number): boolean {
  return status >= 400 && status < 500 && status !== 429;
}

/**
 * Middleware: 429 `too_many_failures` (refuseWhenFailingTooOften) while the request's address
 * failed too often; otherwise runs the route and counts its answer when the client caused it.
 * `limiterOf` is read on every request (the service's limiter may be replaced at run time).
 */
export function limitFailures(
  limiterOf: () => FailureLimiter,
  addressOf: (c: Context) => string | null,
  what: string,
): MiddlewareHandler {
  return async (c, next) => {
    const address = addressOf(c);
    const limiter = limiterOf();
    refuseWhenFailingTooOften(limiter, address, what);
    await next();
    if (clientCausedFailure(c.res.status)) limiter.fail(address);
  };
}
