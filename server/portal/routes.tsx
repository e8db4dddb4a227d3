/** The agent portal. For now: the session screen a launch lands on, behind the login cookie. */
import { Hono } from "hono";
import { getCookie } from "hono/cookie";
import { findPortalLogin } from "../../db/queries/launch.ts";
import { findLaunchView } from "../../db/queries/portal.ts";
import { sha256 } from "../crypto/hashing.ts";
import type { Deps } from "../deps.ts";
import type { AppEnv } from "../env.ts";
import { frameAncestorsCsp, LOGIN_COOKIE } from "../launch/pages.tsx";

/** Portal routes, mounted at PORTAL_PREFIX. */
export function portalRoutes(deps: Deps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.get("/sessions/:id{[0-9]+}", async (c) => {
    const token = getCookie(c, LOGIN_COOKIE);
    const agent = token ? await findPortalLogin(deps.sql, await sha256(token)) : null;
    c.header("Cache-Control", "no-store");
    // Only the app the launch came from (and the portal itself) may frame the screen.
    const launchId = Number(c.req.query("launch"));
    const launch = agent && Number.isSafeInteger(launchId) && launchId > 0
      ? await findLaunchView(deps.sql, {
        launchId,
        sessionId: Number(c.req.param("id")),
        agentId: agent.userId,
      })
      : null;
    c.header("Content-Security-Policy", frameAncestorsCsp(launch?.frameAncestors ?? []));
    if (!agent) {
      return c.html(
        "<!doctype html>" +
          (
            <html lang="en">
              <head>
                <meta charset="utf-8" />
                <title>Sign in required</title>
              </head>
              <body>
                <main>
                  <h1>Sign in required</h1>
                  <p>Open this session from your application to sign in.</p>
                </main>
              </body>
            </html>
          ).toString(),
        401,
      );
    }
    const [session] = await deps.sql`
      select s.id, s.status, s.external_reference, c.first_name, c.last_name
      from sessions s join customers c on c.id = s.customer_id where s.id = ${c.req.param("id")}
    `;
    if (!session) return c.html("<!doctype html><p>Session not found</p>", 404);
    return c.html(
      "<!doctype html>" +
        (
          <html lang="en">
            <head>
              <meta charset="utf-8" />
              <title>Session {String(session.id)}</title>
            </head>
            <body>
              <main>
                <h1>Session {String(session.id)}</h1>
                <p>
                  Agent: {agent.firstName} {agent.lastName}
                </p>
                <p>
                  Customer: {session.firstName} {session.lastName}
                </p>
                <p>Status: {session.status}</p>
                <p>Reference: {session.externalReference}</p>
              </main>
            </body>
          </html>
        ).toString(),
    );
  });
  return app;
}
