/** Failed sign-in limiting, shared by the portal and the admin screens. */

/** Counts failed logins per key in a sliding window; blocks a key after `max` failures. */
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
