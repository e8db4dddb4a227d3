/**
 * Timeout signals whose timers can be cleared. AbortSignal.timeout keeps its timer, and the
 * request listening to it, alive for the whole timeout after the answer came: at 2,000
 * deliveries a second with a 30 s deadline, some 60,000 finished requests held in memory.
 */

/**
 * The signal of one request: it aborts with a TimeoutError after `ms` (whole milliseconds; at
 * once when there are none, so a request with no time left is never sent), or with `interrupt`'s
 * reason when that aborts first (at once if it already has). `clear` drops the timer and the
 * listener on `interrupt` once the request is done. One controller and one timer per request,
 * where `AbortSignal.any` over a timeout and the interrupt made a dependent signal and its weak
 * references for every delivery.
 */
export function requestSignal(
  ms: number,
  interrupt?: AbortSignal,
): { signal: AbortSignal; clear(): void } {
  const controller = new AbortController();
  const whole = Math.max(0, Math.round(ms));
  const timedOut = () =>
    controller.abort(new DOMException(`timed out after ${whole} ms`, "TimeoutError"));
  if (whole === 0) timedOut();
  const timer = whole === 0 ? undefined : setTimeout(timedOut, whole);
  if (!interrupt) return { signal: controller.signal, clear: () => clearTimeout(timer) };
  const stop = () => controller.abort(interrupt.reason);
  if (interrupt.aborted) stop();
  else interrupt.addEventListener("abort", stop, { once: true });
  return {
    signal: controller.signal,
    clear: () => {
      clearTimeout(timer);
      interrupt.removeEventListener("abort", stop);
    },
  };
}

/**
 * How long one request of an attempt may take: its own `timeoutMs`, cut to what is left of the
 * attempt's deadline (`deadlineAt`, on the `performance.now()` clock), never below zero.
 */
export function requestTimeoutMs(timeoutMs: number, deadlineAt: number, now: number): number {
  return Math.max(0, Math.min(timeoutMs, deadlineAt - now));
}

/**
 * Waits for `promise` unless `signal` aborts first (then rejects with its reason); `late` gets what
 * the promise yields after that (a connection made too late, to close).
 */
export async function untilAborted<T>(
  promise: Promise<T>,
  signal: AbortSignal,
  late?: (value: T) => unknown,
): Promise<T> {
  signal.throwIfAborted();
  let onAbort = () => {};
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
  });
  try {
    return await Promise.race([promise, aborted]);
  } catch (err) {
    if (late) promise.then(late, () => {});
    throw err;
  } finally {
    signal.removeEventListener("abort", onAbort);
  }
}
