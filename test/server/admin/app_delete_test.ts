/**
 * Deleting an app that has launched: 409 `app_has_sessions` with the counts, or with cascade its
 * sessions, customers and launch log go with it in one transaction (API and screen).
 */
import assert from "node:assert/strict";
import { backends } from "../../helpers/db.ts";
import { sharedFixture, uniqueId } from "../../helpers/shared.ts";
import { startTestService, type TestService } from "../../helpers/service.ts";
import { createTestApp, launchOk, type TestApp } from "../../helpers/launch.ts";
import { launchPayload } from "../../helpers/payload.ts";
import { getAs, postAs, signInAdmin } from "../../helpers/admin_screens.ts";

const ADMIN = { email: "root@example.com", password: "admin-password-123" };
/** What launchedApp leaves in the database, and what a cascade leaves of it. */
const LAUNCHED = { apps: 1, sessions: 2, customers: 1, launches: 2 };
const GONE = { apps: 0, sessions: 0, customers: 0, launches: 0 };

/** What the database holds for an app (by name): its sessions, customers and launch records. */
async function holdings(
  svc: TestService,
  appName: string,
): Promise<{ apps: number; sessions: number; customers: number; launches: number }> {
  const [row] = await svc.db.sql<
    { apps: number; sessions: number; customers: number; launches: number }[]
  >`
    select
      (select count(*) from apps where app_name = ${appName})::int as apps,
      (select count(*) from sessions s join apps a on a.id = s.app_id
        where a.app_name = ${appName})::int as sessions,
      (select count(*) from customers c join apps a on a.id = c.app_id
        where a.app_name = ${appName})::int as customers,
      (select count(*) from launches where app_name = ${appName})::int as launches
  `;
  return row;
}

/** An app that has launched twice (two sessions, one customer, two launch records). */
async function launchedApp(svc: TestService, token: string): Promise<TestApp> {
  const app = await createTestApp(svc, token, uniqueId("del-").toLowerCase());
  await launchOk(svc, app, launchPayload({ referenceNumber: "CASE-A" }));
  await launchOk(svc, app, launchPayload({ referenceNumber: "CASE-B" }));
  return app;
}

for (const backend of backends) {
  const service = sharedFixture(
    () => startTestService(backend, { ADMIN_EMAIL: ADMIN.email, ADMIN_PASSWORD: ADMIN.password }),
    (svc) => svc.close(),
  );
  const test = (name: string, fn: (svc: TestService) => Promise<void>) =>
    Deno.test({
      name: `app delete ${name} [${backend.name}]`,
      sanitizeOps: false,
      sanitizeResources: false,
      fn: async () => await fn(await service()),
    });

  test("of an app with sessions is 409 app_has_sessions with the counts", async (svc) => {
    const token = await svc.adminToken();
    const app = await launchedApp(svc, token);
    const res = await svc.api("DELETE", `/api/v1/admin/apps/${app.appName}`, token);
    assert.equal(res.status, 409);
    const body = await res.json();
    assert.equal(body.code, "app_has_sessions");
    assert.deepEqual(body.counts, { sessions: 2, customers: 1, launches: 2 });
    assert.match(body.message, /cascade=true/);
    assert.deepEqual(await holdings(svc, app.appName), LAUNCHED);
  });

  test("with cascade=true deletes its sessions, customers and launch log", async (svc) => {
    const token = await svc.adminToken();
    const app = await launchedApp(svc, token);
    const other = await launchedApp(svc, token);
    const res = await svc.api("DELETE", `/api/v1/admin/apps/${app.appName}?cascade=true`, token);
    assert.equal(res.status, 204);
    assert.deepEqual(await holdings(svc, app.appName), GONE);
    assert.deepEqual(
      await holdings(svc, other.appName),
      LAUNCHED,
      "another app keeps what it holds",
    );
  });

  test("with cascade=true deletes nothing when the transaction fails", async (svc) => {
    const token = await svc.adminToken();
    const app = await launchedApp(svc, token);
    // A fault at the last step (deleting the app row itself) must undo the steps before it.
    const fn = `refuse_${app.appName.replaceAll("-", "_")}`;
    await svc.db.sql.unsafe(`
      create function ${fn}() returns trigger language plpgsql as $$
      begin
        if old.app_name = '${app.appName}' then raise exception 'injected fault'; end if;
        return old;
      end $$;
      create trigger ${fn} before delete on apps for each row execute function ${fn}();
    `);
    try {
      const res = await svc.api("DELETE", `/api/v1/admin/apps/${app.appName}?cascade=true`, token);
      assert.equal(res.status, 500);
      await res.body?.cancel();
    } finally {
      await svc.db.sql.unsafe(`drop trigger ${fn} on apps; drop function ${fn}();`);
    }
    assert.deepEqual(await holdings(svc, app.appName), LAUNCHED);
  });

  test("of an app that never launched is 204 without cascade", async (svc) => {
    const token = await svc.adminToken();
    const app = await createTestApp(svc, token, uniqueId("del-").toLowerCase());
    const res = await svc.api("DELETE", `/api/v1/admin/apps/${app.appName}`, token);
    assert.equal(res.status, 204);
    assert.equal((await holdings(svc, app.appName)).apps, 0);
  });

  test("cascade other than true or false is 400", async (svc) => {
    const token = await svc.adminToken();
    const app = await createTestApp(svc, token, uniqueId("del-").toLowerCase());
    const res = await svc.api("DELETE", `/api/v1/admin/apps/${app.appName}?cascade=yes`, token);
    assert.equal(res.status, 400);
    assert.equal((await res.json()).errors[0].path, "cascade");
  });

  test("screen shows the refusal with the counts and offers the cascade", async (svc) => {
    const token = await svc.adminToken();
    const app = await launchedApp(svc, token);
    const admin = await signInAdmin(svc, ADMIN);
    const path = `/admin/apps/${app.appName}/delete`;
    const refused = await postAs(svc, admin, path, { confirm: "on" });
    assert.equal(refused.status, 409);
    const page = await refused.text();
    assert.match(page, /role="alert">Not deleted: [^<]* has 2 sessions, 1 customers and 2 launch/);
    assert.match(page, /data-testid="delete-cascade"/);
    assert.match(page, /name="confirmCascade"/);
    const unconfirmed = await postAs(svc, admin, path, { cascade: "on", confirm: "on" });
    assert.equal(unconfirmed.status, 400, "the cascade needs its own confirmation");
    assert.match(await unconfirmed.text(), /data-testid="delete-cascade"/);
    assert.equal((await holdings(svc, app.appName)).sessions, 2);
    const done = await postAs(svc, admin, path, { cascade: "on", confirmCascade: "on" });
    assert.equal(done.status, 303);
    await done.body?.cancel();
    assert.deepEqual(await holdings(svc, app.appName), GONE);
    const gone = await getAs(svc, admin, `/admin/apps/${app.appName}`);
    assert.equal(gone.status, 404);
    await gone.body?.cancel();
  });
}
