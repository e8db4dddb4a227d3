/**
 * The draining state of a stopping service (server/ops/shutdown.ts): from SIGTERM on, /readyz
 * answers 503 `draining` so load balancers take the process out, and every response carries
 * `Connection: close` so keep-alive clients open their next connection elsewhere. It also counts
 * the requests in the app, because Deno's `server.shutdown()` fails a request whose body is still
 * arriving ("Cannot read body as underlying resource unavailable", Deno 2.9.6): the listener is
 * closed once none is in flight.
 */
import type { MiddlewareHandler } from "hono";

/** Whether the service is draining (set once, never cleared) and how many requests it handles. */
export class Drain {
  #draining = false;
  #inFlight = 0;
  #idle: (() => void)[] = [];

  /** True once the shutdown began. */
  get draining(): boolean {
    return this.#draining;
  }

  /** Requests in the app now (from the first middleware until the response is returned). */
  get inFlight(): number {
    return this.#inFlight;
  }

  /** Begins the drain (idempotent). */
  begin(): void {
    this.#draining = true;
  }

  /** Resolves when no request is in flight. */
  idle(): Promise<void> {
    if (this.#inFlight === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idle.push(resolve));
  }

  /**
   * The first middleware: counts the request, and while draining makes its response close its
   * connection (checked after the handler, so a request in flight when the drain began gets it).
   */
  middleware(): MiddlewareHandler {
    return async (c, next) => {
      this.#inFlight++;
      try {
        await next();
      } finally {
        if (--this.#inFlight === 0) { for (const resolve of this.#idle.splice(0)) resolve(); }
      }
      if (!this.#draining) return;
      try {
        c.res.headers.set("Connection", "close");
      } catch {
        // Immutable headers (Response.redirect, a fetched response): copy the response first.
        c.res = new Response(c.res.body, c.res);
        c.res.headers.set("Connection", "close");
      }
    };
  }
}
