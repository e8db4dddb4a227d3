/**
 * Delivery against a real receiver: retries on 5xx, Retry-After on 429, timeouts, permanent 4xx
 * and redirects, per-session order, a lease taken over after a worker died, OAuth tokens
 * renewed after a 401, and the deliveries API with redelivery.
 */
import assert from "node:assert/strict";
import { backends } from "../../helpers/db.ts";
import { uniqueId } from "../../helpers/shared.ts";
import { callbackFixtures, startCrmServer, waitUntil, withCrm } from "./fixture.ts";
import type { Json } from "../../helpers/payload.ts";
import { claimDueEvents } from "../../../db/queries/callback_events.ts";

const opts = { sanitizeOps: false, sanitizeResources: false };

for (const [backend, fixture] of callbackFixtures(backends)) {
  const name = (what: string) => `callbacks: ${what} [${backend.name}]`;

  Deno.test(
    name("500 twice then 200: delivered once, three attempts logged"),
    opts,
    withCrm(fixture, async (f, crm) => {
      crm.script = [{ status: 500, body: "down" }, { status: 503 }];
      const app = await f.app(crm);
      const launch = await f.launch(app, { referenceId: uniqueId("R") });
      await f.settled("session.created", launch.sessionId);
      assert.equal(crm.received.length, 3);
      assert.equal(new Set(crm.received.map((r) => r.headers["webhook-id"])).size, 1, "same id");
      assert.ok(crm.received.every((r) => r.verified), "each attempt signed afresh");
      const [d] = await f.deliveries(app.appName);
      assert.equal(d.status, "delivered");
      assert.deepEqual(d.attemptLog.map((a: Json) => a.statusCode), [500, 503, 200]);
      assert.equal(d.attemptLog[0].responseSnippet, "down");
      assert.equal(d.attemptLog[2].responseSnippet, '{"ok":true}');
      assert.ok(d.attemptLog.every((a: Json) => a.url.endsWith(`/hooks/${d.referenceId}`)));
      assert.ok(d.finishedAt);
    }),
  );

  Deno.test(
    name("429 waits for Retry-After; 404 fails at once; redirects are not followed"),
    opts,
    withCrm(fixture, async (f, crm) => {
      crm.script = [{ status: 429, headers: { "Retry-After": "1" } }];
      const app = await f.app(crm);
      const a = await f.launch(app, { referenceId: uniqueId("R") });
      await f.settled("session.created", a.sessionId);
      const gap = crm.received[1].at - crm.received[0].at;
      assert.ok(gap >= 900, `second attempt ${gap} ms after the 429`);
      crm.script = [{ status: 404, body: "no such case" }];
      const b = await f.launch(app, { referenceId: uniqueId("R") });
      await f.settled("session.created", b.sessionId, "failed");
      crm.script = [{ status: 302, headers: { Location: `${crm.url}/elsewhere` } }];
      const c = await f.launch(app, { referenceId: uniqueId("R") });
      await f.settled("session.created", c.sessionId, "failed");
      assert.equal(crm.received.filter((r) => r.path === "/elsewhere").length, 0);
      const all = await f.deliveries(app.appName);
      const of = (id: number) => all.find((d: Json) => d.sessionId === id);
      assert.equal(of(b.sessionId).attemptLog.length, 1, "a 404 is not retried");
      assert.match(of(b.sessionId).attemptLog[0].error, /not retried/);
      assert.equal(of(c.sessionId).attemptLog.length, 1);
      assert.match(of(c.sessionId).lastError, /redirects are not followed/);
    }),
  );

  Deno.test(
    name("a timeout is retried; the last attempt fails the event"),
    opts,
    withCrm(fixture, async (f, crm) => {
      crm.script = [{ status: 200, delayMs: 1_500 }];
      const app = await f.app(crm);
      const a = await f.launch(app, { referenceId: uniqueId("R") });
      await f.settled("session.created", a.sessionId);
      const [d] = await f.deliveries(app.appName);
      assert.match(d.attemptLog[0].error, /timed out after 1000 ms/);
      assert.equal(d.attemptLog[0].statusCode, null);
      assert.equal(d.attemptLog[1].statusCode, 200);
      crm.fallback = { status: 500 };
      const b = await f.launch(app, { referenceId: uniqueId("R") });
      await f.settled("session.created", b.sessionId, "failed");
      const failed = (await f.deliveries(app.appName, "&status=failed"))[0];
      assert.equal(failed.attemptLog.length, 4, "CALLBACK_MAX_ATTEMPTS");
    }),
  );

  Deno.test(
    name("a session's events arrive in order while an earlier one is retried"),
    opts,
    withCrm(fixture, async (f, crm) => {
      crm.script = [{ status: 500 }, { status: 500 }];
      const app = await f.app(crm);
      const a = await f.launch(app, { referenceId: uniqueId("R") });
      for (const status of ["closed", "open", "closed"]) {
        const res = await f.svc.api("PATCH", `/api/v1/sessions/${a.sessionId}`, f.admin, {
          status,
        });
        await res.body?.cancel();
      }
      await crm.waitFor(6);
      const firstOk = crm.received.map((r) => (r.json as Json).type);
      assert.deepEqual(firstOk, [
        "session.created",
        "session.created",
        "session.created",
        "session.closed",
        "session.reopened",
        "session.closed",
      ]);
    }),
  );

  Deno.test(
    name("an event whose worker died is delivered when its lease runs out"),
    opts,
    async () => {
      const f = await fixture();
      const crm = startCrmServer();
      try {
        const app = await f.app(crm, { callbackEvents: ["session.closed"] });
        const a = await f.launch(app, { referenceId: uniqueId("R") });
        // A worker that claims with a 300 ms lease and dies before sending anything.
        await f.svc.deps.deliveries.stop();
        const res = await f.svc.api("PATCH", `/api/v1/sessions/${a.sessionId}`, f.admin, {
          status: "closed",
        });
        await res.body?.cancel();
        const claimed = await claimDueEvents(f.svc.db.sql, 100, 300);
        assert.ok(claimed.some((e) => e.sessionId === a.sessionId));
        f.svc.deps.deliveries.start();
        const [got] = await crm.waitFor(1);
        assert.equal((got.json as Json).type, "session.closed");
        await f.settled("session.closed", a.sessionId);
        const [d] = await f.deliveries(app.appName);
        assert.equal(d.status, "delivered");
        assert.equal(d.attempts, 2, "the dead worker's claim counts as an attempt");
      } finally {
        f.svc.deps.deliveries.start();
        await crm.close();
      }
    },
  );

  Deno.test(
    name("OAuth apps send a client-credentials token; a 401 fetches a new one"),
    opts,
    withCrm(fixture, async (f, crm) => {
      crm.requireToken = true;
      const app = await f.app(crm, {
        authType: "oauth2_signed_request",
        consumerKey: "key with space",
        consumerSecret: "consumer-secret-0123456789",
        tokenUrl: `${crm.url}/oauth/token`,
      });
      const a = await f.launch(app, { referenceId: uniqueId("R") });
      await f.settled("session.created", a.sessionId);
      assert.equal(crm.tokenRequests.length, 1);
      const basic = crm.tokenRequests[0].headers.authorization;
      assert.equal(
        atob(basic.replace("Basic ", "")),
        "key+with+space:consumer-secret-0123456789",
      );
      assert.equal(crm.tokenRequests[0].body, "grant_type=client_credentials");
      assert.equal(crm.received[0].headers.authorization, "Bearer tok-1");
      // The cached token is reused, until the CRM stops accepting it.
      const b = await f.launch(app, { referenceId: uniqueId("R") });
      await f.settled("session.created", b.sessionId);
      assert.equal(crm.tokenRequests.length, 1, "cached");
      crm.accepted.delete("tok-1");
      const c = await f.launch(app, { referenceId: uniqueId("R") });
      await f.settled("session.created", c.sessionId);
      assert.equal(crm.tokenRequests.length, 2);
      const last = crm.received.slice(-2).map((r) => r.headers.authorization);
      assert.deepEqual(last, ["Bearer tok-1", "Bearer tok-2"]);
      const d = (await f.deliveries(app.appName)).at(-1);
      assert.equal(d.attemptLog.length, 1, "one attempt, renewed within it");
      assert.match(d.attemptLog[0].error, /401 with the first token/);
      // client_secret_post puts the credentials in the body.
      const res = await f.svc.api("PATCH", `/api/v1/admin/apps/${app.appName}`, f.admin, {
        tokenAuthMethod: "client_secret_post",
      });
      await res.body?.cancel();
      crm.accepted.clear();
      const e = await f.launch(app, { referenceId: uniqueId("R") });
      await f.settled("session.created", e.sessionId);
      const post = crm.tokenRequests.at(-1)!;
      assert.equal(post.headers.authorization, undefined);
      assert.deepEqual(
        Object.fromEntries(new URLSearchParams(post.body)),
        {
          grant_type: "client_credentials",
          client_id: "key with space",
          client_secret: "consumer-secret-0123456789",
        },
      );
    }),
  );

  Deno.test(
    name("a failing token endpoint is a retried delivery failure"),
    opts,
    withCrm(fixture, async (f, crm) => {
      const app = await f.app(crm, {
        authType: "oauth2_signed_request",
        consumerKey: "k",
        consumerSecret: "consumer-secret-0123456789",
        tokenUrl: `${crm.url}/no-token-here`,
      });
      crm.fallback = { status: 500, body: "token service down" };
      const a = await f.launch(app, { referenceId: uniqueId("R") });
      await f.settled("session.created", a.sessionId, "failed");
      const [d] = await f.deliveries(app.appName);
      assert.equal(d.attemptLog.length, 4);
      assert.match(d.attemptLog[0].error, /token endpoint .* answered 500/);
    }),
  );

  Deno.test(
    name("deliveries API: own app only, filters, redelivery with the same id"),
    opts,
    withCrm(fixture, async (f, crm) => {
      const app = await f.app(crm);
      const other = await f.app(crm);
      const ref = uniqueId("R");
      const a = await f.launch(app, { referenceId: ref });
      await f.launch(other, { referenceId: uniqueId("R") });
      await crm.waitFor(2);
      await f.settled("session.created", a.sessionId);
      const tokenRes = await f.svc.request("/api/v1/oauth2/token", {
        method: "POST",
        body: new URLSearchParams({
          grant_type: "client_credentials",
          client_id: app.clientId,
          client_secret: app.clientSecret,
        }),
      });
      const token = (await tokenRes.json()).access_token;
      const own = await (await f.svc.api("GET", "/api/v1/deliveries", token)).json();
      assert.deepEqual(own.items.map((d: Json) => d.appName), [app.appName], "own app only");
      const byRef = await (await f.svc.api("GET", `/api/v1/deliveries?referenceId=${ref}`, f.admin))
        .json();
      assert.equal(byRef.items.length, 1);
      const none = await (await f.svc.api(
        "GET",
        `/api/v1/deliveries?app=${app.appName}&type=session.closed`,
        f.admin,
      )).json();
      assert.equal(none.items.length, 0);
      const bad = await f.svc.api("GET", "/api/v1/deliveries?status=lost", f.admin);
      assert.equal(bad.status, 400);
      await bad.body?.cancel();
      const id = own.items[0].id;
      const redo = await f.svc.api("POST", `/api/v1/deliveries/${id}/redeliver`, token);
      assert.equal(redo.status, 202);
      await redo.body?.cancel();
      await waitUntil(
        () =>
          crm.received.filter((r) => r.headers["webhook-id"] === own.items[0].webhookId)
            .length === 2,
        "the redelivery",
      );
      const otherId = (await f.deliveries(other.appName))[0].id;
      const foreign = await f.svc.api("POST", `/api/v1/deliveries/${otherId}/redeliver`, token);
      assert.equal(foreign.status, 404, "another app's event is not found");
      await foreign.body?.cancel();
      const callbackEvents = await f.svc.api(
        "GET",
        `/api/v1/sessions/${a.sessionId}/events`,
        token,
      );
      assert.equal((await callbackEvents.json()).items[0].webhookId, own.items[0].webhookId);
    }),
  );
}
