/**
 * Organizations keep tenants apart (issue 32): one tenant's app key cannot take over, reach,
 * probe or frame another tenant's agents, teams and sessions. Each attack as a regression test.
 */
import assert from "node:assert/strict";
import { backends } from "../../helpers/db.ts";
import { sharedFixture, uniqueId } from "../../helpers/shared.ts";
import { startTestService, type TestService } from "../../helpers/service.ts";
import { appClientToken, createTestApp, signLaunch, type TestApp } from "../../helpers/launch.ts";
import { type Json, launchPayload } from "../../helpers/payload.ts";

const opts = { sanitizeOps: false, sanitizeResources: false };

interface Fixture {
  svc: TestService;
  admin: string;
  /** App of organization `default`, framed by https://a.test. */
  a: TestApp;
  /** App of another organization, framed by https://b.test. */
  b: TestApp;
}

async function start(backend: (typeof backends)[number]): Promise<Fixture> {
  const svc = await startTestService(backend);
  const admin = await svc.adminToken();
  const a = await createTestApp(svc, admin, "tenant-a", { frameAncestors: ["https://a.test"] });
  const b = await createTestApp(svc, admin, "tenant-b", { frameAncestors: ["https://b.test"] });
  await svc.db.sql`insert into organizations (slug, name) values ('other', 'Other')`;
  await svc.db.sql`update apps set organization_id = (select id from organizations
    where slug = 'other') where app_name = 'tenant-b'`;
  return { svc, admin, a, b };
}

/** A launch through `app` answered as a browser gets it: the login cookie and the screen. */
async function launch(
  f: Fixture,
  app: TestApp,
  params: Json = {},
  user: Json = {},
  headers: Record<string, string> = {},
): Promise<{ cookie: string; screen: string; sessionId: number; launchId: number }> {
  const res = await f.svc.request(`/portal/api/auth/app/${app.appName}`, {
    method: "POST",
    headers: { Accept: "text/html", ...headers },
    body: new URLSearchParams({
      signed_request: await signLaunch(
        launchPayload({ contactId: uniqueId("C"), referenceId: uniqueId("R"), ...params }, user),
        app.apiKey,
      ),
    }),
  });
  assert.equal(res.status, 303, await res.text());
  const location = new URL(res.headers.get("Location")!, "http://portal.test");
  return {
    cookie: res.headers.get("Set-Cookie")!.split(";")[0],
    screen: location.pathname,
    sessionId: Number(location.pathname.split("/").pop()),
    launchId: Number(location.searchParams.get("launch")),
  };
}

function person(prefix: string): Json {
  const id = uniqueId(prefix);
  return { id, email: `${id}@example.com`, first_name: "Ada", last_name: prefix };
}

for (const backend of backends) {
  const fixture = sharedFixture(() => start(backend), (f) => f.svc.close());
  const name = (s: string) => `organizations: ${s} [${backend.name}]`;

  Deno.test(
    name("the same e-mail launched from two organizations is two agents"),
    opts,
    async () => {
      const f = await fixture();
      const ada = person("ada");
      const fromA = await launch(f, f.a, {}, ada);
      const fromB = await launch(f, f.b, {}, { ...ada, first_name: "Mallory" });
      const agents = await f.svc.db.sql`select u.id, u.first_name, o.slug from users u
      join organizations o on o.id = u.organization_id
      where lower(u.email) = ${ada.email} order by o.slug`;
      assert.deepEqual(agents.map((r) => [r.slug, r.firstName]), [
        ["default", "Ada"],
        ["other", "Mallory"],
      ], "each organization its own agent; A's profile is untouched by B's launch");
      // B's login neither opens, lists nor changes A's session.
      const opened = await f.svc.request(fromA.screen, { headers: { Cookie: fromB.cookie } });
      assert.equal(opened.status, 404);
      await opened.body?.cancel();
      const list = await f.svc.request("/portal/sessions", { headers: { Cookie: fromB.cookie } });
      const html = await list.text();
      assert.doesNotMatch(html, new RegExp(`/sessions/${fromA.sessionId}\\b`));
      const close = await f.svc.request(`${fromA.screen}/status`, {
        method: "POST",
        headers: { Cookie: fromB.cookie },
        body: new URLSearchParams({ status: "closed", csrf: "x" }),
      });
      assert.equal(close.status, 404);
      await close.body?.cancel();
      const [s] = await f.svc.db.sql`select status from sessions where id = ${fromA.sessionId}`;
      assert.equal(s.status, "open");
      // Nor the other way round: A's login does not open or list B's session.
      const reverse = await f.svc.request(fromB.screen, { headers: { Cookie: fromA.cookie } });
      assert.equal(reverse.status, 404);
      await reverse.body?.cancel();
      const listA = await f.svc.request("/portal/sessions", { headers: { Cookie: fromA.cookie } });
      assert.doesNotMatch(await listA.text(), new RegExp(`/sessions/${fromB.sessionId}\\b`));
      // A relaunch from B with a new e-mail for the same person moves B's agent, never A's.
      await launch(f, f.b, {}, { ...ada, email: `${uniqueId("new")}@example.com` });
      const [still] = await f.svc.db.sql`select email from users u
      where u.organization_id = 1 and lower(email) = ${ada.email}`;
      assert.equal(still.email, ada.email);
    },
  );

  Deno.test(name("teams with the same teamId in two organizations stay apart"), opts, async () => {
    const f = await fixture();
    const teamId = uniqueId("support");
    const a = await launch(f, f.a, {
      user: { teams: [{ teamId, teamName: "Support A" }] },
    }, person("ta"));
    await launch(f, f.b, {
      user: { teams: [{ teamId, teamName: "Renamed by B" }] },
    }, person("tb"));
    const teams = await f.svc.db.sql`select t.name, o.slug from teams t
      join organizations o on o.id = t.organization_id where t.team_id = ${teamId} order by 2`;
    assert.deepEqual(teams.map((r) => [r.slug, r.name]), [
      ["default", "Support A"],
      ["other", "Renamed by B"],
    ]);
    // B's team-mate does not reach A's team session.
    const mate = await launch(
      f,
      f.b,
      { user: { teams: [{ teamId, teamName: "x" }] } },
      person("m"),
    );
    const res = await f.svc.request(a.screen, { headers: { Cookie: mate.cookie } });
    assert.equal(res.status, 404);
    await res.body?.cancel();
  });

  Deno.test(
    name("assignee probing gets one identical 400 for every foreign id"),
    opts,
    async () => {
      const f = await fixture();
      const own = await launch(f, f.b, {}, person("own"));
      const foreign = await launch(f, f.a, {}, person("foreign"));
      const [foreignAgent] = await f.svc.db.sql`select assignee_id from sessions
      where id = ${foreign.sessionId}`;
      const [disabled] = await f.svc.db.sql`insert into users (organization_id, role, email,
      disabled_at) select id, 'agent', ${`${uniqueId("off")}@example.com`}, now()
      from organizations where slug = 'other' returning id`;
      const [admin] = await f.svc.db.sql`select id from users where role = 'admin' limit 1`;
      const ids = [Number(foreignAgent.assigneeId), Number(disabled.id), 999999, admin?.id ?? 1];
      const token = await appClientToken(f.svc, f.b);
      const answers = new Set<string>();
      for (const assigneeId of ids) {
        const res = await f.svc.api("PATCH", `/api/v1/sessions/${own.sessionId}`, token, {
          assigneeId,
        });
        assert.equal(res.status, 400);
        const body = await res.json();
        assert.equal(body.code, "invalid_assignee");
        assert.deepEqual(body.errors.map((e: Json) => e.path), ["assigneeId"]);
        // Every answer has its own requestId; the rest must not tell the ids apart.
        const { requestId: _id, ...rest } = body;
        answers.add(JSON.stringify(rest));
      }
      assert.equal(answers.size, 1, "the same answer whatever the id names");
    },
  );

  Deno.test(name("the transfer list holds only the organization's agents"), opts, async () => {
    const f = await fixture();
    const outsider = person("outsider");
    await launch(f, f.a, {}, outsider);
    const colleague = person("colleague");
    await launch(f, f.b, {}, colleague);
    const me = await launch(f, f.b, { showSessionTransferButton: true }, person("me"));
    const html = await (await f.svc.request(me.screen, { headers: { Cookie: me.cookie } })).text();
    assert.match(html, new RegExp(colleague.email));
    assert.doesNotMatch(html, new RegExp(outsider.email));
  });

  Deno.test(
    name("a session the login did not launch is framed by 'self' and messages no one"),
    opts,
    async () => {
      const f = await fixture();
      const ada = person("frame");
      const first = await launch(f, f.a, {}, ada);
      const second = await launch(f, f.a, {}, ada);
      // The first login (launched on the first session) opens the second session too (assignee).
      const own = await f.svc.request(first.screen, { headers: { Cookie: first.cookie } });
      assert.match(
        own.headers.get("Content-Security-Policy")!,
        /frame-ancestors 'self' https:\/\/a\.test/,
      );
      assert.match(await own.text(), /https:\/\/a\.test/);
      const other = await f.svc.request(second.screen, { headers: { Cookie: first.cookie } });
      assert.equal(other.status, 200);
      assert.match(other.headers.get("Content-Security-Policy")!, /frame-ancestors 'self'$/);
      assert.doesNotMatch(await other.text(), /a\.test/, "no message target");
    },
  );

  Deno.test(
    name("a launch posted from a foreign Origin is refused, nothing written"),
    opts,
    async () => {
      const f = await fixture();
      // Every table a launch writes (the refusal's launch-log row aside).
      const written = async () =>
        await f.svc.db.sql`select
          (select count(*) from sessions)::int as sessions,
          (select count(*) from users)::int as users,
          (select count(*) from customers)::int as customers,
          (select count(*) from teams)::int as teams,
          (select count(*) from logins)::int as logins,
          (select count(*) from launch_nonces)::int as nonces,
          (select count(*) from callback_events)::int as events`;
      const before = await written();
      const res = await f.svc.request(`/portal/api/auth/app/${f.a.appName}`, {
        method: "POST",
        headers: { Accept: "application/json", Origin: "https://evil.test" },
        body: new URLSearchParams({
          signed_request: await signLaunch(
            launchPayload(
              { user: { teams: [{ teamId: uniqueId("team"), teamName: "Cross-site" }] } },
              person("csrf"),
            ),
            f.a.apiKey,
          ),
        }),
      });
      assert.equal(res.status, 403);
      assert.equal((await res.json()).code, "origin_not_allowed");
      assert.deepEqual(await written(), before, "nothing written");
      const [logged] = await f.svc.db.sql`select outcome from launches
      where app_name = ${f.a.appName} order by id desc limit 1`;
      assert.equal(logged.outcome, "origin_not_allowed");
      // Allowed: the app's own origin and no Origin at all; Origin null continues through the
      // continue page (test/server/launch/continue_test.ts), signing no one in by itself.
      for (const origin of ["https://a.test", undefined]) {
        await launch(f, f.a, {}, person("ok"), origin ? { Origin: origin } : {});
      }
      const opaque = await f.svc.request(`/portal/api/auth/app/${f.a.appName}`, {
        method: "POST",
        headers: { Accept: "text/html", Origin: "null" },
        body: new URLSearchParams({
          signed_request: await signLaunch(launchPayload({}, person("opaque")), f.a.apiKey),
        }),
      });
      assert.equal(opaque.status, 200);
      assert.match(await opaque.text(), /Continue to the portal/);
      assert.equal(opaque.headers.get("Set-Cookie"), null);
    },
  );
}
