/** A test service listening on a real port, for browser tests. */
import type { Backend } from "./db.ts";
import { startTestService, type TestService } from "./service.ts";

/** A test service reachable over HTTP at `base`. */
export interface HttpTestService extends TestService {
  base: string;
}

/** Listens on 127.0.0.1 first, so PUBLIC_URL (and every redirect) names the real port. */
export async function startHttpService(
  backend: Backend,
  env: Record<string, string> = {},
  publicHost = "127.0.0.1",
): Promise<HttpTestService> {
  let handler: (req: Request, info: Deno.ServeHandlerInfo) => Response | Promise<Response> = () =>
    new Response("starting", { status: 503 });
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    (req, info) => handler(req, info),
  );
  const base = `http://${publicHost}:${server.addr.port}`;
  const svc = await startTestService(backend, { PUBLIC_URL: base, ...env });
  handler = (req, info) => svc.app.fetch(req, { remoteAddr: info.remoteAddr });
  return {
    ...svc,
    base,
    async close() {
      // As a stopping process does (server/ops/shutdown.ts): open signaling sockets would hold
      // Deno's server.shutdown() until they close.
      svc.deps.remote.relay.closeSockets();
      // Like a stopping process, the listener gets a deadline: a connection a browser left
      // half-open must not hold a test file forever.
      let timer: ReturnType<typeof setTimeout> | undefined;
      const late = new Promise<boolean>((r) => timer = setTimeout(() => r(false), 5_000));
      const closed = await Promise.race([server.shutdown().then(() => true), late]);
      clearTimeout(timer);
      if (!closed) console.warn(`test service ${base}: connections still open after 5 s`);
      await svc.close();
    },
  };
}
