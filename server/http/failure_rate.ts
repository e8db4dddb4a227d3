/**
 * Too many failures from one client address: after LAUNCH_FAILURES_PER_MINUTE failed launches (or
 * TOKEN_FAILURES_PER_MINUTE failed token requests) within a minute, the address gets 429 with
 * Retry-After until the oldest failure leaves the window. The counts live in each process.
 */
import { AppError } from "./errors.ts";

/** Counts failures per key in a sliding window; blocks a key after `max` failures. */
export class FailureLimiter {
  #failures = new Map<string, number[]>();

  constructor(
    private max: number,
    private windowMs: number,
    private now: () => number = Date.now,
  ) {}

  /** Milliseconds until `key` may try again, or 0 when it may now. */
  retryAfter(key: string): number {
    const recent = this.#recent(key);
    return recent.length >= this.max ? recent[0] + this.windowMs - this.now() : 0;
  }

  /** Records a failure for `key`. */
  fail(key: string): void {
    const recent = this.#recent(key);
    recent.push(this.now());
    this.#failures.set(key, recent);
    if (this.#failures.size > 100_000) {
      this.#failures.delete(this.#failures.keys().next().value!);
    }
  }

  /** Forgets `key` (after a successful login). */
  reset(key: string): void {
    this.#failures.delete(key);
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
  const ms = limiter.retryAfter(address ?? "unknown");
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
