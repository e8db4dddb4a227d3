/** Logins: each is accepted only by its own cookie, and role or password changes end them. */
import assert from "node:assert/strict";
import { backends } from "../../helpers/db.ts";
import { startTestService, type TestService } from "../../helpers/service.ts";
import { sharedFixture } from "../../helpers/shared.ts";
import { createTestApp, signLaunch } from "../../helpers/launch.ts";
import { launchPayload } from "../../helpers/payload.ts";
import { uniqueId } from "../../helpers/shared.ts";
import { postSignIn } from "../../helpers/sign_in.ts";

const opts = { sanitizeOps: false, sanitizeResources: false };

for (const backend of backends) {
  const service = sharedFixture(
    () =>
      startTestService(backend, {
        ADMIN_EMAIL: "root@example.com",
        ADMIN_PASSWORD: "root-password-0123456789",
      }),
    (svc: TestService) => svc.close(),
  );

  /** Launches a fresh agent; returns its portal cookie, session path and id. */
  const portalLogin = async (svc: TestService) => {
    const app = await createTestApp(svc, await svc.adminToken(), uniqueId("lg"));
    const id = uniqueId("ag");
    const res = await svc.request(`/portal/api/auth/app/${app.appName}`, {
      method: "POST",
      headers: { Accept: "text/html" },
      body: new URLSearchParams({
        signed_request: await signLaunch(
          launchPayload({}, { id, email: `${id}@example.com` }),
          app.apiKey,
        ),
      }),
    });
    assert.equal(res.status, 303);
    const token = res.headers.get("Set-Cookie")!.split(";")[0].split("=")[1];
    const [user] = await svc.db.sql`select id from users where email = ${`${id}@example.com`}`;
    return { token, path: new URL(res.headers.get("Location")!).pathname, userId: user.id };
  };

  const adminLogin = async (svc: TestService): Promise<string> => {
    const res = await postSignIn(svc, "/admin/login", {
      email: "root@example.com",
      password: "root-password-0123456789",
    });
    assert.equal(res.status, 303);
    return res.headers.get("Set-Cookie")!.split(";")[0].split("=")[1];
  };

  Deno.test(
    `logins: a portal login in the admin cookie is no login, and back [${backend.name}]`,
    opts,
    async () => {
      const svc = await service();
      const portal = await portalLogin(svc);
      const asAdmin = await svc.request("/admin/apps", {
        headers: { Cookie: `admin_login=${portal.token}` },
      });
      assert.equal(asAdmin.status, 303);
      assert.match(asAdmin.headers.get("Location")!, /^\/admin\/login/);
      const admin = await adminLogin(svc);
      const ok = await svc.request("/admin/apps", { headers: { Cookie: `admin_login=${admin}` } });
      assert.equal(ok.status, 200);
      await ok.body?.cancel();
      const asAgent = await svc.request(portal.path, {
        headers: { Cookie: `portal_login=${admin}` },
      });
      assert.equal(asAgent.status, 303, "an admin login is no portal login");
      await asAgent.body?.cancel();
    },
  );

  Deno.test(`logins: a role change ends the user's logins [${backend.name}]`, opts, async () => {
    const svc = await service();
    const portal = await portalLogin(svc);
    const before = await svc.request(portal.path, {
      headers: { Cookie: `portal_login=${portal.token}` },
    });
    assert.equal(before.status, 200);
    await before.body?.cancel();
    await svc.db.sql`update users set role = 'admin' where id = ${portal.userId}`;
    const after = await svc.request(portal.path, {
      headers: { Cookie: `portal_login=${portal.token}` },
    });
    assert.equal(after.status, 303, "the launch-minted login ended with the promotion");
    const [row] = await svc.db.sql`select count(*)::int as n from logins
      where user_id = ${portal.userId}`;
    assert.equal(row.n, 0);
  });

  Deno.test(
    `logins: a password change ends the user's logins [${backend.name}]`,
    opts,
    async () => {
      const svc = await service();
      const portal = await portalLogin(svc);
      const res = await svc.api(
        "PUT",
        `/api/v1/admin/agents/${portal.userId}/password`,
        await svc.adminToken(),
        { password: "a-new-password-0123" },
      );
      assert.equal(res.status, 204);
      const [row] = await svc.db.sql`select count(*)::int as n from logins
      where user_id = ${portal.userId}`;
      assert.equal(row.n, 0);
      const other = await portalLogin(svc);
      await svc.db.sql`update users set first_name = 'Renamed' where id = ${other.userId}`;
      const [kept] = await svc.db.sql`select count(*)::int as n from logins
      where user_id = ${other.userId}`;
      assert.equal(kept.n, 1, "other changes keep the logins");
    },
  );
}
