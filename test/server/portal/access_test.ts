/** An agent's cookie reaches only the agent's sessions; a launch's restrictions bind its login. */
import assert from "node:assert/strict";
import { backends } from "../../helpers/db.ts";
import { startTestService, type TestService } from "../../helpers/service.ts";
import { sharedFixture, uniqueId } from "../../helpers/shared.ts";
import { createTestApp, signLaunch, type TestApp } from "../../helpers/launch.ts";
import { launchPayload } from "../../helpers/payload.ts";

const opts = { sanitizeOps: false, sanitizeResources: false };

for (const backend of backends) {
  const fixture = sharedFixture(async () => {
    const svc = await startTestService(backend);
    const app = await createTestApp(svc, await svc.adminToken(), uniqueId("pa"));
    return { svc, app };
  }, ({ svc }: { svc: TestService }) => svc.close());

  /** Launches a fresh agent; returns its cookie, session id and CSRF token. */
  const launchAs = async (svc: TestService, app: TestApp, params = {}) => {
    const id = uniqueId("ag");
    const res = await svc.request(`/portal/api/auth/app/${app.appName}`, {
      method: "POST",
      headers: { Accept: "text/html" },
      body: new URLSearchParams({
        signed_request: await signLaunch(
          launchPayload({ contactId: uniqueId("C"), ...params }, {
            id,
            email: `${id}@example.com`,
          }),
          app.apiKey,
        ),
      }),
    });
    assert.equal(res.status, 303);
    const cookie = res.headers.get("Set-Cookie")!.split(";")[0];
    const location = new URL(res.headers.get("Location")!);
    const sessionId = Number(location.pathname.split("/").pop());
    const page = await (await svc.request(location.pathname, { headers: { Cookie: cookie } }))
      .text();
    const csrf = page.match(/name="csrf" value="([^"]+)"/)![1];
    return { cookie, sessionId, csrf, path: location.pathname };
  };

  Deno.test(
    `portal access: another agent's session is 404 on GET and every POST [${backend.name}]`,
    opts,
    async () => {
      const { svc, app } = await fixture();
      const alice = await launchAs(svc, app);
      const bob = await launchAs(svc, app);
      const get = await svc.request(alice.path, { headers: { Cookie: bob.cookie } });
      assert.equal(get.status, 404);
      await get.body?.cancel();
      for (const action of ["status", "assign", "transfer", "remote", "visual-support"]) {
        const res = await svc.request(`${alice.path}/${action}`, {
          method: "POST",
          headers: { Cookie: bob.cookie },
          body: new URLSearchParams({ csrf: bob.csrf, status: "closed", agentId: "1" }),
        });
        assert.equal(res.status, 404, action);
        await res.body?.cancel();
      }
      const [row] = await svc.db.sql`select status, assignee_id from sessions
      where id = ${alice.sessionId}`;
      assert.equal(row.status, "open", "nothing changed");
      const own = await svc.request(alice.path, { headers: { Cookie: alice.cookie } });
      assert.equal(own.status, 200);
      await own.body?.cancel();
    },
  );

  Deno.test(
    `portal access: a team mate of the assignee reaches the session [${backend.name}]`,
    opts,
    async () => {
      const { svc, app } = await fixture();
      const team = [{ teamId: uniqueId("T"), teamName: "Desk" }];
      const alice = await launchAs(svc, app, { "user.teams": team });
      const carol = await launchAs(svc, app, { "user.teams": team });
      const res = await svc.request(alice.path, { headers: { Cookie: carol.cookie } });
      assert.equal(res.status, 200);
      await res.body?.cancel();
    },
  );

  Deno.test(
    `portal access: a launch's hidden control stays refused without the launch field [${backend.name}]`,
    opts,
    async () => {
      const { svc, app } = await fixture();
      const agent = await launchAs(svc, app, { showSessionStatusChange: false });
      const res = await svc.request(`${agent.path}/status`, {
        method: "POST",
        headers: { Cookie: agent.cookie },
        body: new URLSearchParams({ csrf: agent.csrf, status: "closed" }),
      });
      assert.equal(res.status, 403);
      await res.body?.cancel();
      const [row] = await svc.db.sql`select status from sessions where id = ${agent.sessionId}`;
      assert.equal(row.status, "open");
    },
  );

  Deno.test(`portal access: sign out ends the login [${backend.name}]`, opts, async () => {
    const { svc, app } = await fixture();
    const agent = await launchAs(svc, app);
    const out = await svc.request("/portal/logout", {
      method: "POST",
      headers: { Cookie: agent.cookie },
      body: new URLSearchParams({ csrf: agent.csrf }),
    });
    assert.equal(out.status, 303);
    assert.match(out.headers.get("Set-Cookie")!, /^portal_login=;.*Max-Age=0/);
    const after = await svc.request(agent.path, { headers: { Cookie: agent.cookie } });
    assert.equal(after.status, 303, "back to sign-in");
    await after.body?.cancel();
  });
}
