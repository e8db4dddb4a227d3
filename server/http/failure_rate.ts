/**
 * Too many failures from one client address: after LAUNCH_FAILURES_PER_MINUTE failed launches (or
 * TOKEN_FAILURES_PER_MINUTE failed token requests) within a minute, the address gets 429 with
 * Retry-After until the oldest failure leaves the window. The counts live in each process.
 */
import type { FailureLimiter } from "../auth/sign_in_limiter.ts";
import { AppError } from "./errors.ts";

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
