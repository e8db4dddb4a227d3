/**
 * Callback settings: the private-network rule at configuration and at delivery, the signing
 * secret shown once and rotated with an overlap, the test event, and both CRM adapters against
 * mock CRMs of their shape.
 */
import assert from "node:assert/strict";
import { Webhook } from "standardwebhooks";
import { backends } from "../../helpers/db.ts";
import { startTestService } from "../../helpers/service.ts";
import { sharedFixture, uniqueId } from "../../helpers/shared.ts";
import { callbackFixtures, withCrm } from "./fixture.ts";
import type { Json } from "../../helpers/payload.ts";
import { launchPayload } from "../../helpers/payload.ts";
import { claimDueEvents, insertClaimedPing } from "../../../db/queries/callback_events.ts";

const opts = { sanitizeOps: false, sanitizeResources: false };

for (const [backend, fixture] of callbackFixtures(backends)) {
  const name = (what: string) => `callbacks: ${what} [${backend.name}]`;

  /** A service with the private-network rule on; *.internal.test resolves to 10.0.0.8. */
  const strict = sharedFixture(async () => {
    const svc = await startTestService(backend, { CALLBACK_RETRY_BASE_MS: "20" }, {}, {
      resolve: (host) =>
        Promise.resolve(host.endsWith("internal.test") ? ["10.0.0.8"] : ["93.184.216.34"]),
    });
    return { svc, admin: await svc.adminToken() };
  }, ({ svc }) => svc.close());

  Deno.test(
    name("private-network rule: refused when configured and before sending"),
    opts,
    async () => {
      const { svc, admin } = await strict();
      for (
        const [url, why] of [
          ["http://crm.example.com/hooks", /https:\/\//],
          ["https://127.0.0.1/hooks", /loopback/],
          ["https://169.254.169.254/latest/meta-data", /link-local/],
          ["https://localhost:8443/hooks", /loopback/],
          ["https://[::1]/hooks", /loopback/],
        ] as const
      ) {
        const res = await svc.api("POST", "/api/v1/admin/apps", admin, {
          appName: uniqueId("ssrf"),
          name: "SSRF",
          authType: "signed_request",
          callbackUrl: url,
        });
        const body = await res.json();
        assert.equal(res.status, 400, url);
        assert.equal(body.errors[0].path, "callbackUrl");
        assert.match(body.errors[0].message, why);
      }
      const tokenUrl = await svc.api("POST", "/api/v1/admin/apps", admin, {
        appName: uniqueId("ssrf"),
        name: "SSRF",
        authType: "oauth2_signed_request",
        consumerKey: "k",
        consumerSecret: "consumer-secret-0123456789",
        tokenUrl: "https://10.1.1.1/token",
      });
      assert.equal(tokenUrl.status, 400);
      assert.equal((await tokenUrl.json()).errors[0].path, "tokenUrl");
      // A name that passes the configuration check but resolves inside the network.
      const created = await svc.api("POST", "/api/v1/admin/apps", admin, {
        appName: uniqueId("ssrf"),
        name: "SSRF",
        authType: "signed_request",
        callbackUrl: "https://crm.internal.test/hooks/{referenceId}",
      });
      const app = await created.json();
      assert.equal(created.status, 201, JSON.stringify(app));
      const ping = await svc.api("POST", `/api/v1/admin/apps/${app.appName}/callbacks/test`, admin);
      const result = await ping.json();
      assert.equal(ping.status, 200);
      assert.equal(result.delivered, false);
      assert.equal(result.status, "failed", "refused destinations are not retried");
      assert.match(result.attempt.error, /resolves to 10\.0\.0\.8/);
    },
  );

  Deno.test(
    name("the callback secret is shown once and rotates with an overlap"),
    opts,
    withCrm(fixture, async (f, crm) => {
      const app = await f.app(crm);
      assert.match(app.callbackSecret, /^whsec_/);
      const read = await (await f.svc.api("GET", `/api/v1/admin/apps/${app.appName}`, f.admin))
        .json();
      assert.equal(read.callbackSecret, `••••••••${app.callbackSecret.slice(-4)}`);
      assert.deepEqual(read.callbackEvents.length, 10, "all types by default");
      assert.equal(read.callbackMethod, "POST");
      const rotated = await (await f.svc.api(
        "POST",
        `/api/v1/admin/apps/${app.appName}/callback-secret`,
        f.admin,
        { previousSecretValidSeconds: 3600 },
      )).json();
      assert.match(rotated.callbackSecret, /^whsec_/);
      assert.ok(Date.parse(rotated.previousSecretExpiresAt) > Date.now() + 3500_000);
      const ping = await (await f.svc.api(
        "POST",
        `/api/v1/admin/apps/${app.appName}/callbacks/test`,
        f.admin,
      )).json();
      assert.equal(ping.delivered, true);
      assert.equal(ping.attempt.statusCode, 200);
      const [got] = crm.received.slice(-1);
      assert.equal((got.json as Json).type, "ping");
      assert.equal(got.headers["webhook-id"], ping.webhookId);
      assert.equal(got.headers["webhook-signature"].split(" ").length, 2, "both signatures");
      for (const secret of [app.callbackSecret, rotated.callbackSecret]) {
        new Webhook(secret).verify(got.body, got.headers);
      }
      const dropped = await (await f.svc.api(
        "POST",
        `/api/v1/admin/apps/${app.appName}/callback-secret`,
        f.admin,
        { previousSecretValidSeconds: 0 },
      )).json();
      await f.svc.api("POST", `/api/v1/admin/apps/${app.appName}/callbacks/test`, f.admin)
        .then((r) => r.body?.cancel());
      const [last] = crm.received.slice(-1);
      assert.equal(last.headers["webhook-signature"].split(" ").length, 1);
      new Webhook(dropped.callbackSecret).verify(last.body, last.headers);
      assert.throws(() => new Webhook(rotated.callbackSecret).verify(last.body, last.headers));
      const none = await f.app(crm, { callbackUrl: null });
      const refused = await f.svc.api(
        "POST",
        `/api/v1/admin/apps/${none.appName}/callbacks/test`,
        f.admin,
      );
      assert.equal(refused.status, 409);
      assert.equal((await refused.json()).code, "callbacks_not_configured");
    }),
  );

  Deno.test(
    name("a test ping is written claimed: the background worker cannot take it first"),
    opts,
    withCrm(fixture, async (f, crm) => {
      const app = await f.app(crm);
      const [row] = await f.svc.db.sql<{ id: number }[]>`
          select id from apps where app_name = ${app.appName}`;
      const ping = await insertClaimedPing(f.svc.db.sql, row.id, { type: "ping" }, 60_000);
      assert.ok(ping);
      assert.equal(ping.attempts, 1);
      const due = await claimDueEvents(f.svc.db.sql, 1000, 300);
      assert.ok(!due.some((e) => e.id === ping.id), "a leased ping is not due");
      // Many test events in a row, each answered by its own delivery, with the worker polling.
      const answers = await Promise.all(
        Array.from(
          { length: 8 },
          () =>
            f.svc.api("POST", `/api/v1/admin/apps/${app.appName}/callbacks/test`, f.admin)
              .then((r) => r.json()),
        ),
      );
      for (const answer of answers) assert.equal(answer.delivered, true, JSON.stringify(answer));
    }),
  );

  Deno.test(
    name("crm_standard: a Canvas launch calls back into its instance with its token"),
    opts,
    withCrm(fixture, async (f, crm) => {
      crm.requireToken = true;
      crm.accepted.add("canvas-session-token");
      const app = await f.app(crm, {
        authType: "oauth2_signed_request",
        implementor: "crm_standard",
        consumerKey: "3MVG9canvas",
        consumerSecret: "canvas-consumer-secret-0123",
        tokenUrl: `${crm.url}/oauth/token`,
        callbackUrl:
          "{instanceUrl}/services/data/v62.0/sobjects/Portal_Event__c/Webhook_Id__c/{webhookId}",
        callbackMethod: "PATCH",
      });
      const caseId = uniqueId("500");
      const agent = uniqueId("005");
      const canvas = {
        algorithm: "HMACSHA256",
        userId: agent,
        client: { instanceUrl: crm.url, oauthToken: "canvas-session-token" },
        context: {
          user: {
            userId: agent,
            email: `${agent}@example.com`,
            firstName: "Ada",
            lastName: "Lovelace",
            language: "en_US",
          },
          environment: {
            parameters: {
              ...launchPayload().context.environment.parameters,
              contactId: uniqueId("003"),
              contactEmail: `${uniqueId("c")}@example.org`,
              referenceId: caseId,
            },
          },
        },
      };
      const launched = await f.launch(app, {}, {}, canvas);
      await f.settled("session.created", launched.sessionId);
      const [first] = crm.received;
      assert.equal(first.method, "PATCH");
      assert.match(
        first.path,
        /^\/services\/data\/v62\.0\/sobjects\/Portal_Event__c\/Webhook_Id__c\/msg_/,
      );
      assert.equal(first.headers.authorization, "Bearer canvas-session-token");
      assert.equal(first.verified, true);
      assert.equal((first.json as Json).Case__c, caseId);
      assert.equal((first.json as Json).Event_Type__c, "session.created");
      const [logged] = await f.svc.db.sql`select payload from launches
        where id = ${launched.launchId}`;
      assert.equal(logged.payload.client.oauthToken, "[redacted]");
      // The Canvas token expires: a 401, then client credentials.
      crm.accepted.delete("canvas-session-token");
      const res = await f.svc.api("PATCH", `/api/v1/sessions/${launched.sessionId}`, f.admin, {
        status: "closed",
      });
      await res.body?.cancel();
      await f.settled("session.closed", launched.sessionId);
      const auths = crm.received.slice(1).map((r) => r.headers.authorization);
      assert.deepEqual(auths, ["Bearer canvas-session-token", "Bearer tok-1"]);
      assert.equal((crm.received.at(-1)!.json as Json).Session_Status__c, "closed");
    }),
  );

  Deno.test(
    name("crm_v6_5: case activities with a client-credentials token"),
    opts,
    withCrm(fixture, async (f, crm) => {
      crm.requireToken = true;
      const app = await f.app(crm, {
        authType: "oauth2_signed_request",
        implementor: "crm_v6_5",
        consumerKey: "v65-client",
        consumerSecret: "v65-consumer-secret-012345",
        tokenUrl: `${crm.url}/oauth/token`,
        callbackUrl: `${crm.url}/api/v6.5/cases/{referenceId}/activities`,
      });
      const caseId = uniqueId("CASE");
      const launched = await f.launch(app, { referenceId: caseId, referenceNumber: "N-1" });
      await f.settled("session.created", launched.sessionId);
      const [got] = crm.received;
      assert.equal(got.path, `/api/v6.5/cases/${caseId}/activities`);
      assert.equal(got.headers.authorization, "Bearer tok-1");
      assert.equal(got.headers["idempotency-key"], got.headers["webhook-id"]);
      const activity = (got.json as Json).activity;
      assert.equal(activity.kind, "portal.session.created");
      assert.equal(activity.caseStatus, "In Progress");
      assert.equal(activity.caseNumber, "N-1");
      assert.equal(activity.externalId, got.headers["webhook-id"]);
    }),
  );
}
