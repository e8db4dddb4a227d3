/**
 * Tenancy of launches: sessions and customers belong to the app that created them; customers are
 * matched within the app; an agent is one person across apps (e-mail) with an external id per app.
 */
import assert from "node:assert/strict";
import { backends } from "../../helpers/db.ts";
import { createTestApp, launchOk, signLaunch, type TestApp } from "../../helpers/launch.ts";
import { uniqueId } from "../../helpers/shared.ts";
import { launchPayload } from "../../helpers/payload.ts";
import { delta, fixtureTest, freshPayload, type LaunchFixture, launchFixtures } from "./fixture.ts";

const fixtures = launchFixtures(backends);

async function twoApps(f: LaunchFixture): Promise<[TestApp, TestApp]> {
  return [
    await createTestApp(f.svc, f.adminToken, uniqueId("ta")),
    await createTestApp(f.svc, f.adminToken, uniqueId("tb")),
  ];
}

for (const backend of backends) {
  const test = fixtureTest(fixtures, backend, "tenancy ");

  test("two apps launching the same contactId and e-mail get two customers", async (f) => {
    const [a, b] = await twoApps(f);
    const p = freshPayload();
    const inA = await launchOk(f.svc, a, p);
    const inB = await launchOk(f.svc, b, p);
    assert.notEqual(inA.customerId, inB.customerId);
    const again = await launchOk(f.svc, a, p);
    assert.equal(again.customerId, inA.customerId, "within an app the customer is found again");
    const rows = await f.svc.db.sql`select app_id from customers
      where id in (${inA.customerId}, ${inB.customerId}) order by id`;
    assert.equal(new Set(rows.map((r) => r.appId)).size, 2);
  });

  test("app B naming app A's session gets 404 and A's session is unchanged", async (f) => {
    const [a, b] = await twoApps(f);
    const first = await launchOk(f.svc, a, freshPayload());
    const [before] = await f.svc.db.sql`select * from sessions where id = ${first.sessionId}`;
    const counts = await f.counts();
    const res = await f.svc.request(`/portal/api/auth/app/${b.appName}`, {
      method: "POST",
      headers: { Accept: "application/json" },
      body: new URLSearchParams({
        signed_request: await signLaunch(
          freshPayload({ sessionId: first.sessionId, assign: true, referenceNumber: "HIJACK" }),
          b.apiKey,
        ),
      }),
    });
    assert.equal(res.status, 404);
    assert.equal((await res.json()).code, "session_not_found");
    const [after] = await f.svc.db.sql`select * from sessions where id = ${first.sessionId}`;
    assert.deepEqual(after, before);
    assert.deepEqual(delta(counts, await f.counts()), { launches: 1 }, "only B's log record");
  });

  test("an agent is one person across apps, with an external id per app", async (f) => {
    const [a, b] = await twoApps(f);
    const email = `${uniqueId("agent")}@example.com`;
    const inA = await launchOk(f.svc, a, launchPayload({}, { id: "same-id", email }));
    const inB = await launchOk(f.svc, b, launchPayload({}, { id: "other-id", email }));
    assert.equal(inA.agentId, inB.agentId, "matched by e-mail across apps");
    const ids = await f.svc.db.sql`select a.app_name, e.external_id from agent_external_ids e
      join apps a on a.id = e.app_id where e.user_id = ${inA.agentId} order by a.app_name`;
    assert.deepEqual(
      ids.map((r) => [r.appName, r.externalId]),
      [[a.appName, "same-id"], [b.appName, "other-id"]],
    );
    // App B's external id "same-id" is not app A's: a different e-mail makes a different agent.
    const other = await launchOk(
      f.svc,
      b,
      launchPayload({}, { id: "same-id", email: `${uniqueId("x")}@example.com` }),
    );
    assert.notEqual(other.agentId, inA.agentId);
  });
}
