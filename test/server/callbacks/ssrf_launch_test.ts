/**
 * The reported SSRF, end to end on a service with the private-network rule on: a crm_standard
 * launch carrying `client.instanceUrl = "https://{instanceUrl}@127.0.0.1:<port>"` must not make
 * the service connect to 127.0.0.1; the launch keeps no instance and says why.
 */
import assert from "node:assert/strict";
import { backends } from "../../helpers/db.ts";
import { startTestService } from "../../helpers/service.ts";
import { sharedFixture, uniqueId } from "../../helpers/shared.ts";
import { signLaunch } from "../../helpers/launch.ts";
import { type Json, launchPayload } from "../../helpers/payload.ts";
import { waitUntil } from "../../helpers/crm_server.ts";

const opts = { sanitizeOps: false, sanitizeResources: false };

/** A TCP listener on 127.0.0.1 that counts the connections it is offered. */
function countingListener(): { port: number; connections: () => number; close: () => void } {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  let count = 0;
  (async () => {
    for await (const conn of listener) {
      count += 1;
      conn.close();
    }
  })().catch(() => {});
  return {
    port: listener.addr.port,
    connections: () => count,
    close: () => listener.close(),
  };
}

for (const backend of backends) {
  const name = (what: string) => `callbacks: ${what} [${backend.name}]`;

  /** Private networks refused; every name resolves to a public address (no real DNS). */
  const strict = sharedFixture(async () => {
    const svc = await startTestService(
      backend,
      { CALLBACK_RETRY_BASE_MS: "20", CALLBACK_POLL_MS: "50" },
      {},
      { resolve: () => Promise.resolve(["93.184.216.34"]) },
    );
    return { svc, admin: await svc.adminToken() };
  }, ({ svc }) => svc.close());

  Deno.test(
    name("a launch's instanceUrl with {instanceUrl}@127.0.0.1 reaches nothing, and is refused"),
    opts,
    async () => {
      const { svc, admin } = await strict();
      const target = countingListener();
      try {
        const created = await svc.api("POST", "/api/v1/admin/apps", admin, {
          appName: uniqueId("ssrf"),
          name: "SSRF",
          authType: "signed_request",
          implementor: "crm_standard",
          callbackUrl: "{instanceUrl}/services/data/v62.0/sobjects/Portal_Event__c/" +
            "Webhook_Id__c/{webhookId}",
          callbackMethod: "PATCH",
        });
        const app = await created.json();
        assert.equal(created.status, 201, JSON.stringify(app));
        const agent = uniqueId("005");
        const canvas = {
          algorithm: "HMACSHA256",
          client: { instanceUrl: `https://{instanceUrl}@127.0.0.1:${target.port}` },
          context: {
            user: {
              userId: agent,
              email: `${agent}@example.com`,
              firstName: "Ada",
              lastName: "Lovelace",
            },
            environment: {
              parameters: {
                ...launchPayload().context.environment.parameters,
                contactId: uniqueId("003"),
                contactEmail: `${uniqueId("c")}@example.org`,
                referenceId: uniqueId("500"),
              },
            },
          },
        };
        const res = await svc.request(`/portal/api/auth/app/${app.appName}`, {
          method: "POST",
          headers: { Accept: "application/json" },
          body: new URLSearchParams({ signed_request: await signLaunch(canvas, app.apiKey) }),
        });
        const launched = await res.json();
        assert.equal(res.status, 200, JSON.stringify(launched));
        const refused = (w: Json) =>
          w.code === "crm_instance_url_refused" && w.path === "client.instanceUrl";
        assert.equal(launched.warnings.filter(refused).length, 1, JSON.stringify(launched));
        const [record] = await svc.db.sql`select warnings from launches
          where id = ${launched.launchId}`;
        assert.equal(record.warnings.filter(refused).length, 1, "on the launch record");
        const kept = await svc.db.sql`select instance_url from session_crm_contexts
          where session_id = ${launched.sessionId}`;
        assert.deepEqual([...kept], [], "no instance kept for the session");
        // Its event fails at once: the callback URL needs an instance the session does not have.
        const failed = await waitUntil(async () => {
          const [row] = await svc.db.sql`select status from callback_events
            where session_id = ${launched.sessionId} and type = 'session.created'`;
          return row?.status === "failed" ? row : undefined;
        }, "session.created to fail");
        assert.equal(failed.status, "failed");
        assert.equal(target.connections(), 0, "nothing connected to 127.0.0.1");
      } finally {
        target.close();
      }
    },
  );
}
