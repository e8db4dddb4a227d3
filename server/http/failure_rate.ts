/**
 * Too many failures from one client address: after LAUNCH_FAILURES_PER_MINUTE failed launches (or
 * TOKEN_FAILURES_PER_MINUTE failed requests to the OAuth token, revocation and introspection
 * endpoints, counted together) within a minute, the address gets 429 with Retry-After until the
 * oldest failure leaves the window. Only failures the client caused count: a 4xx answer, but not
 * the 429 of the limit itself and never a 5xx (the service's fault must not lock addresses out).
 * The counts live in each process.
 */
import type { Context, MiddlewareHandler } from "hono";
import { AppError } from "./errors.ts";
import { rateLimitKey } from "./client_address.ts";
import { setBounded } from "../bounded_map.ts";

/** Addresses whose failures are kept; past it, the one that failed least recently goes. */
export const MAX_TRACKED_ADDRESSES = 100_000;

/**
 * Counts failures per client address (its rate-limit key: an IPv6 client's /64) in a sliding
 * window; blocks an address after `max` failures.
 */
export class FailureLimiter {
  #failures = new Map<string, number[]>();

  constructor(
    private max: number,
    private windowMs: number,
    private now: () => number = Date.now,
  ) {}

  /** Milliseconds until `address` may try again, or 0 when it may now. */
  retryAfter(address: string | null): number {
    const recent = this.#recent(rateLimitKey(address));
    return recent.length >= this.max ? recent[0] + this.windowMs - this.now() : 0;
  }

  /** Records a failure from `address`. */
  fail(address: string | null): void {
    const key = rateLimitKey(address);
    const recent = this.#recent(key);
    recent.push(this.now());
    // The bound drops the address that failed least recently, never one failing now.
    setBounded(this.#failures, key, recent, MAX_TRACKED_ADDRESSES);
  }

  /** Number of addresses with failures kept (tests). */
  get size(): number {
    return this.#failures.size;
  }

  #recent(key: string): number[] {
    const since = this.now() - this.windowMs;
    return (this.#failures.get(key) ?? []).filter((t) => t > since);
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
