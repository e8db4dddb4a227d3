/**
 * The draining state of a stopping service (server/ops/shutdown.ts): from SIGTERM on, /readyz
 * answers 503 `draining` so load balancers take the process out, and every response carries
 * `Connection: close` so keep-alive clients open their next connection elsewhere. It also counts
 * the requests in the app, because Deno's `server.shutdown()` fails a request whose body is still
 * arriving ("Cannot read body as underlying resource unavailable", Deno 2.9.6): the listener is
 * closed once the requests in flight at the end of the drain have answered.
 */
import type { MiddlewareHandler } from "hono";

/** Whether the service is draining (set once, never cleared), and the requests it handles. */
export class Drain {
  #draining = false;
  #active = new Set<Promise<void>>();

  /** True once the shutdown began. */
  get draining(): boolean {
    return this.#draining;
  }

  /** Requests in the app now (from the first middleware until the response is returned). */
  get inFlight(): number {
    return this.#active.size;
  }

  /** Begins the drain (idempotent). */
  begin(): void {
    this.#draining = true;
  }

  /** Resolves when the requests in flight now have answered (later ones are not waited for). */
  async settled(): Promise<void> {
    await Promise.all([...this.#active]);
  }

  /**
   * The first middleware: tracks the request, and while draining makes its response close its
   * connection (checked after the handler, so a request in flight when the drain began gets it).
   */
  middleware(): MiddlewareHandler {
    return async (c, next) => {
      let done = () => {};
      const answered = new Promise<void>((resolve) => done = resolve);
      this.#active.add(answered);
      try {
        await next();
      } finally {
        this.#active.delete(answered);
        done();
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
