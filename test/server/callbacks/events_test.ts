/**
 * Every event type from every source (launch, portal, REST), in the Standard Webhooks layout,
 * verified by the `standardwebhooks` package; nothing from a rolled-back launch.
 */
import assert from "node:assert/strict";
import { backends } from "../../helpers/db.ts";
import { uniqueId } from "../../helpers/shared.ts";
import { callbackFixtures, waitUntil, withCrm } from "./fixture.ts";
import type { Json } from "../../helpers/payload.ts";

const opts = { sanitizeOps: false, sanitizeResources: false };

for (const [backend, fixture] of callbackFixtures(backends)) {
  const name = (what: string) => `callbacks: ${what} [${backend.name}]`;

  Deno.test(
    name("a launch emits session.created, a relaunch updated and assigned"),
    opts,
    withCrm(fixture, async (f, crm) => {
      const app = await f.app(crm);
      const ref = uniqueId("500");
      const first = await f.launch(app, { referenceId: ref, referenceNumber: "CASE-1" });
      const [created] = await crm.waitFor(1);
      assert.equal(created.verified, true, "standardwebhooks verifies the signature");
      assert.equal(created.method, "POST");
      assert.equal(created.path, `/hooks/${ref}`);
      assert.match(created.headers["webhook-id"], /^msg_[0-9a-f]{32}$/);
      assert.equal(created.headers["content-type"], "application/json");
      const body = created.json as Json;
      assert.equal(body.type, "session.created");
      assert.ok(!Number.isNaN(Date.parse(body.timestamp)));
      assert.equal(body.data.referenceId, ref);
      assert.equal(body.data.referenceNumber, "CASE-1");
      assert.equal(body.data.sessionId, first.sessionId);
      assert.equal(body.data.status, "open");
      assert.equal(body.data.assignee.id, first.agentId);
      assert.equal(body.data.customer.id, first.customerId);
      await f.launch(app, { sessionId: String(first.sessionId), assign: true });
      const all = await crm.waitFor(3);
      assert.deepEqual(all.map((r) => (r.json as Json).type), [
        "session.created",
        "session.updated",
        "session.assigned",
      ]);
      const assigned = all[2].json as Json;
      assert.notEqual(assigned.data.assignee.id, first.agentId, "the relaunching agent");
      assert.ok(all.every((r) => r.verified));
      assert.equal(new Set(all.map((r) => r.headers["webhook-id"])).size, 3);
    }),
  );

  Deno.test(
    name("no event without referenceId, callback URL or subscription; none from a dry run"),
    opts,
    withCrm(fixture, async (f, crm) => {
      const app = await f.app(crm, { callbackEvents: ["session.closed"] });
      const noRef = await f.launch(app);
      const subscribedElsewhere = await f.launch(app, { referenceId: uniqueId("R") });
      const quiet = await f.app(crm, { callbackUrl: null });
      await f.launch(quiet, { referenceId: uniqueId("R") });
      // The dry run runs the launch's own flow in a transaction that is rolled back.
      const dry = await f.svc.request(`/portal/api/auth/app/${app.appName}/validate`, {
        method: "POST",
        body: new URLSearchParams({
          signed_request: await (await import("../../helpers/launch.ts")).signLaunch(
            (await import("../../helpers/payload.ts")).launchPayload({ referenceId: "DRY1" }),
            app.apiKey!,
          ),
        }),
      });
      assert.equal(dry.status, 200);
      await dry.body?.cancel();
      const [{ n }] = await f.svc.db.sql`select count(*)::int as n from callback_events e
        join apps a on a.id = e.app_id where a.app_name in (${app.appName}, ${quiet.appName})`;
      assert.equal(n, 0);
      // The one subscribed type goes out.
      const res = await f.svc.api(
        "PATCH",
        `/api/v1/sessions/${subscribedElsewhere.sessionId}`,
        f.admin,
        { status: "closed" },
      );
      assert.equal(res.status, 200);
      await res.body?.cancel();
      const [closed] = await crm.waitFor(1);
      assert.equal((closed.json as Json).type, "session.closed");
      assert.equal((closed.json as Json).data.via, "api");
      const patchNoRef = await f.svc.api(
        "PATCH",
        `/api/v1/sessions/${noRef.sessionId}`,
        f.admin,
        {
          status: "closed",
        },
      );
      await patchNoRef.body?.cancel();
      assert.equal(crm.received.length, 1, "a session without referenceId emits nothing");
    }),
  );

  Deno.test(
    name("REST PATCH emits closed, reopened, assigned and updated"),
    opts,
    withCrm(fixture, async (f, crm) => {
      await f.svc.api("POST", "/api/v1/admin/custom-fields", f.admin, { name: "cbprio" })
        .then((r) => r.body?.cancel());
      const app = await f.app(crm);
      const a = await f.launch(app, { referenceId: uniqueId("R") });
      const b = await f.launch(app, { referenceId: uniqueId("R") });
      await crm.waitFor(2);
      const patch = async (body: Json) => {
        const res = await f.svc.api("PATCH", `/api/v1/sessions/${a.sessionId}`, f.admin, body);
        assert.equal(res.status, 200, await res.text());
      };
      await patch({ status: "closed" });
      await patch({ status: "open" });
      await patch({ assigneeId: b.agentId });
      await patch({ customFields: { cbprio: "high" } });
      await patch({ status: "open" }); // no change: no event
      const got = await crm.waitFor(6);
      await new Promise((r) => setTimeout(r, 150));
      const ofA = crm.received.filter((r) => (r.json as Json).data.sessionId === a.sessionId)
        .map((r) => (r.json as Json).type);
      assert.deepEqual(ofA, [
        "session.created",
        "session.closed",
        "session.reopened",
        "session.assigned",
        "session.updated",
      ]);
      assert.equal(got.length, 6);
    }),
  );

  Deno.test(
    name("the portal emits closed, reopened, assigned, path.completed, remote.*"),
    opts,
    withCrm(fixture, async (f, crm) => {
      const category = await (await f.svc.api("POST", "/api/v1/admin/path-categories", f.admin, {
        name: uniqueId("Cat"),
      })).json();
      const path = await (await f.svc.api("POST", "/api/v1/admin/paths", f.admin, {
        title: "Reset the router",
        categoryUid: category.uid,
        published: true,
      })).json();
      const app = await f.app(crm);
      const agent = uniqueId("ag");
      const launchRes = await f.svc.request(`/portal/api/auth/app/${app.appName}`, {
        method: "POST",
        headers: { Accept: "text/html" },
        body: new URLSearchParams({
          signed_request: await (await import("../../helpers/launch.ts")).signLaunch(
            (await import("../../helpers/payload.ts")).launchPayload({
              referenceId: uniqueId("R"),
              contactId: uniqueId("C"),
              showSessionStatusChange: true,
              showAssignToMeButton: true,
              paths: {
                remote: true,
                search: [{ search_type: "category_uid", search_values: [category.uid] }],
              },
            }, { id: agent, email: `${agent}@example.com` }),
            app.apiKey!,
          ),
        }),
      });
      assert.equal(launchRes.status, 303);
      const cookie = launchRes.headers.get("Set-Cookie")!.split(";")[0];
      const location = new URL(launchRes.headers.get("Location")!);
      const sessionId = Number(location.pathname.split("/").pop());
      const shown = await f.svc.request(location.pathname + location.search, {
        headers: { Cookie: cookie },
      });
      assert.equal(shown.status, 200, `${shown.status} ${shown.headers.get("Location")}`);
      const csrf = (await shown.text()).match(/name="csrf" value="([^"]+)"/)![1];
      const post = async (action: string, fields: Record<string, string> = {}) => {
        const res = await f.svc.request(`${location.pathname}/${action}${location.search}`, {
          method: "POST",
          headers: { Cookie: cookie },
          body: new URLSearchParams({ csrf, ...fields }),
        });
        assert.equal(res.status, 303, `${action}: ${res.status}`);
        await res.body?.cancel();
      };
      await crm.waitFor(1);
      await post("status", { status: "closed" });
      await post("status", { status: "open" });
      await post(`paths/${path.uid}/done`);
      await post("remote");
      // Assign: another agent's session taken over through the portal's "Assign to me".
      await f.svc.api("PATCH", `/api/v1/sessions/${sessionId}`, f.admin, { assigneeId: null })
        .then((r) => r.body?.cancel());
      await post("assign");
      const got = await crm.waitFor(8);
      const types = got.map((r) => (r.json as Json).type);
      assert.deepEqual(types, [
        "session.created",
        "session.closed",
        "session.reopened",
        "path.completed",
        "remote.requested",
        "remote.invited",
        "session.assigned",
        "session.assigned",
      ]);
      const completed = got[3].json as Json;
      assert.equal(completed.data.pathUid, path.uid);
      assert.equal(completed.data.pathTitle, "Reset the router");
      assert.equal((got[1].json as Json).data.via, "portal");
      assert.equal((got[7].json as Json).data.assignee.email, `${agent}@example.com`);
      assert.ok(got.every((r) => r.verified));
      await waitUntil(async () => {
        const res = await f.svc.api("GET", `/api/v1/sessions/${sessionId}/events`, f.admin);
        const items = (await res.json()).items as Json[];
        return items.length === 8 && items.every((i) => i.status === "delivered") && items;
      }, "the session's REST view to list its 8 delivered events");
    }),
  );
}
