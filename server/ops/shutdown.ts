/**
 * Graceful shutdown of a serving process (server/main.ts), on SIGTERM or SIGINT:
 *
 * 1. at once: /readyz answers 503 `draining`, every response carries `Connection: close`, and the
 *    callback delivery worker stops claiming;
 * 2. the listener keeps accepting for SHUTDOWN_DRAIN_MS, so load balancers see the 503 and move
 *    traffic away before the port closes; then it closes once the requests in flight then have
 *    answered (server/ops/drain.ts says why it waits for them);
 * 3. requests and callback attempts in flight finish, until the work deadline: SHUTDOWN_TIMEOUT_MS
 *    less a reserve for the last writes. Attempts still running then are abandoned and their events
 *    released (pending, due at once: another process takes them within its poll);
 * 4. the mail worker and the database are closed, and the promise resolves (main.ts exits 0).
 */
import type { Service } from "../service.ts";
import { log } from "../log.ts";

/** The shutdown settings (SHUTDOWN_DRAIN_MS, SHUTDOWN_TIMEOUT_MS). */
export interface ShutdownSettings {
  shutdownDrainMs: number;
  shutdownTimeoutMs: number;
}

/**
 * The time kept after the work deadline for the last writes (releasing events, closing the
 * database): 2 s, or half of what the drain leaves of the timeout when that is less.
 */
export function reserveMs(s: ShutdownSettings): number {
  return Math.min(2_000, Math.floor((s.shutdownTimeoutMs - s.shutdownDrainMs) / 2));
}

/** Waits `ms` (at least 0), cancellably. */
function sleep(ms: number): { done: Promise<void>; cancel: () => void } {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const done = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, Math.max(0, ms));
  });
  return { done, cancel: () => clearTimeout(timer) };
}

/** Drains and stops `server` and `service`; resolves when everything is closed. */
export async function shutDown(
  server: { shutdown(): Promise<void> },
  service: Pick<Service, "drain" | "deps" | "close">,
  settings: ShutdownSettings,
  signal: string,
): Promise<void> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const workUntil = started + settings.shutdownTimeoutMs - reserveMs(settings);
  service.drain.begin();
  log.info("shutting down", {
    signal,
    drainMs: settings.shutdownDrainMs,
    timeoutMs: settings.shutdownTimeoutMs,
  });
  const deliveries = service.deps.deliveries.stop(workUntil - performance.now());
  await sleep(settings.shutdownDrainMs).done;
  const deadline = sleep(workUntil - performance.now());
  const expired = deadline.done.then(() => false);
  // Deno's shutdown() fails a request whose body is still arriving: close once the requests in
  // flight now have answered.
  await Promise.race([service.drain.settled(), expired]);
  // Open screen-sharing sockets would hold the listener open: they are told to go elsewhere.
  const sockets = service.deps.remote.relay.closeSockets();
  if (sockets) log.info("signaling sockets closed (1001)", { sockets });
  const finished = await Promise.race([server.shutdown().then(() => true), expired]);
  deadline.cancel();
  if (finished) log.info("listener closed, requests finished", { ms: elapsed() });
  else {
    log.warn("requests still running at the shutdown deadline are cut", {
      ms: elapsed(),
      inFlight: service.drain.inFlight,
    });
  }
  await deliveries;
  await service.close();
  log.info("stopped", { ms: elapsed() });
}
