/**
 * A timeout signal whose timer can be cleared. AbortSignal.timeout keeps its timer, and the
 * request listening to it, alive for the whole timeout after the answer came: at 2,000
 * deliveries a second with a 30 s deadline, some 60,000 finished requests held in memory.
 */

/** A signal that aborts with a TimeoutError after `ms`; `clear` drops its timer once done. */
export function timeout(ms: number): { signal: AbortSignal; clear(): void } {
  const controller = new AbortController();
  const timer = setTimeout(
    () => controller.abort(new DOMException(`timed out after ${ms} ms`, "TimeoutError")),
    ms,
  );
  return { signal: controller.signal, clear: () => clearTimeout(timer) };
}
