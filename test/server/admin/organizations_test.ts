/**
 * Organizations through the admin API: create, list, rename and delete with their refusals, and
 * apps' `organization` (create, read, move). One service per backend is shared by the tests of
 * this file; every test makes its own organizations and apps under unique names.
 */
import assert from "node:assert/strict";
import { backends } from "../../helpers/db.ts";
import { type AdminApi, startAdminApi } from "../../helpers/admin_api.ts";
import { sharedFixture, uniqueId } from "../../helpers/shared.ts";
import { createTestApp, launchOk } from "../../helpers/launch.ts";
import { type Json, launchPayload } from "../../helpers/payload.ts";

type Fixture = AdminApi;

/** A new organization slug (lowercase, unique in the process). */
function slug(prefix = "org"): string {
  return uniqueId(`${prefix}-`).toLowerCase();
}

/** Creates an organization; throws unless it is created. */
async function createOrganization(f: Fixture, name = "Acme Inc."): Promise<string> {
  const s = slug();
  const { status, body } = await f.api("POST", "/organizations", { slug: s, name });
  assert.equal(status, 201, JSON.stringify(body));
  return s;
}

/** A launch payload with a fresh agent and customer (the agent's e-mail is `email` if given). */
function freshLaunch(email?: string): Json {
  const agent = uniqueId("ag");
  return launchPayload(
    { contactId: uniqueId("C"), contactEmail: `${uniqueId("c")}@example.org` },
    { id: agent, email: email ?? `${agent}@example.com` },
  );
}

for (const backend of backends) {
  const fixture = sharedFixture(() => startAdminApi(backend), (f) => f.svc.close());
  const test = (name: string, fn: (f: Fixture) => Promise<void>) =>
    Deno.test({
      name: `organizations ${name} [${backend.name}]`,
      sanitizeOps: false,
      sanitizeResources: false,
      fn: async () => await fn(await fixture()),
    });

  test("POST creates one and answers {slug, name, createdAt}", async (f) => {
    const s = slug();
    const { status, body } = await f.api("POST", "/organizations", { slug: s, name: "Acme" });
    assert.equal(status, 201);
    assert.deepEqual(Object.keys(body).sort(), ["createdAt", "name", "slug"]);
    assert.equal(body.slug, s);
    assert.equal(body.name, "Acme");
    assert.ok(!Number.isNaN(Date.parse(body.createdAt)));
  });

  test("POST refuses a malformed slug with 400 naming slug", async (f) => {
    for (const bad of ["A-upper", "-dash", "x", "has space", "a".repeat(64), "dot.ted"]) {
      const { status, body } = await f.api("POST", "/organizations", { slug: bad, name: "X" });
      assert.equal(status, 400, bad);
      assert.equal(body.code, "validation_failed");
      assert.deepEqual(body.errors.map((e: Json) => e.path), ["slug"], bad);
    }
    const [{ count }] = await f.svc.db.sql`select count(*)::int from organizations
      where slug in ('x', 'dot.ted')`;
    assert.equal(count, 0);
  });

  test("POST with a taken slug is 409 organization_exists", async (f) => {
    const s = await createOrganization(f);
    const { status, body } = await f.api("POST", "/organizations", { slug: s, name: "Again" });
    assert.equal(status, 409);
    assert.equal(body.code, "organization_exists");
    assert.equal(body.errors[0].path, "slug");
    const dflt = await f.api("POST", "/organizations", { slug: "default", name: "Mine" });
    assert.equal(dflt.status, 409, "default exists from the start");
  });

  test("GET lists every organization by slug, default included", async (f) => {
    const a = await createOrganization(f, "Zed");
    const b = await createOrganization(f, "Alpha");
    const { status, body } = await f.api("GET", "/organizations");
    assert.equal(status, 200);
    const slugs: string[] = body.items.map((o: Json) => o.slug);
    assert.ok(slugs.includes("default") && slugs.includes(a) && slugs.includes(b));
    assert.deepEqual(slugs, [...slugs].sort(), "sorted by slug");
    assert.equal(body.items.find((o: Json) => o.slug === b).name, "Alpha");
  });

  test("PATCH renames it; an unknown slug is 404", async (f) => {
    const s = await createOrganization(f);
    const { status, body } = await f.api("PATCH", `/organizations/${s}`, { name: "Renamed" });
    assert.equal(status, 200);
    assert.equal(body.slug, s);
    assert.equal(body.name, "Renamed");
    const missing = await f.api("PATCH", `/organizations/${slug("none")}`, { name: "X" });
    assert.equal(missing.status, 404);
    assert.equal(missing.body.code, "organization_not_found");
    const blank = await f.api("PATCH", `/organizations/${s}`, { name: " " });
    assert.equal(blank.status, 400);
    assert.equal(blank.body.errors[0].path, "name");
  });

  test("DELETE removes one without apps, with its agents and teams", async (f) => {
    const s = await createOrganization(f);
    const [org] = await f.svc.db.sql`select id from organizations where slug = ${s}`;
    const [agent] = await f.svc.db.sql`insert into users (organization_id, role, email)
      values (${org.id}, 'agent', ${`${uniqueId("a")}@example.com`}) returning id`;
    await f.svc.db.sql`insert into teams (organization_id, team_id, name)
      values (${org.id}, 'T1', 'Tier 1')`;
    const { status } = await f.api("DELETE", `/organizations/${s}`);
    assert.equal(status, 204);
    const [left] = await f.svc.db.sql`select
      (select count(*) from organizations where slug = ${s})::int as organizations,
      (select count(*) from users where id = ${agent.id})::int as agents,
      (select count(*) from teams where organization_id = ${org.id})::int as teams`;
    assert.deepEqual({ ...left }, { organizations: 0, agents: 0, teams: 0 });
    assert.equal((await f.api("DELETE", `/organizations/${s}`)).status, 404);
  });

  test("DELETE of an organization with apps is 409 organization_has_apps", async (f) => {
    const s = await createOrganization(f);
    await createTestApp(f.svc, f.token, slug("app"), { organization: s });
    const { status, body } = await f.api("DELETE", `/organizations/${s}`);
    assert.equal(status, 409);
    assert.equal(body.code, "organization_has_apps");
    const [{ count }] = await f.svc.db.sql`select count(*)::int from organizations
      where slug = ${s}`;
    assert.equal(count, 1, "still there");
  });

  test("DELETE of default is 409 organization_is_default", async (f) => {
    const { status, body } = await f.api("DELETE", "/organizations/default");
    assert.equal(status, 409);
    assert.equal(body.code, "organization_is_default");
    const [{ count }] = await f.svc.db.sql`select count(*)::int from organizations
      where id = 1 and slug = 'default'`;
    assert.equal(count, 1);
  });

  test("an app is created in default unless it names an organization", async (f) => {
    const plain = await createTestApp(f.svc, f.token, slug("app"));
    assert.equal((plain as Json).organization, "default");
    const s = await createOrganization(f);
    const inOrg = await createTestApp(f.svc, f.token, slug("app"), { organization: s });
    assert.equal((inOrg as Json).organization, s);
    const one = await f.api("GET", `/apps/${inOrg.appName}`);
    assert.equal(one.body.organization, s);
    const list = await f.api("GET", "/apps");
    const listed = list.body.items.find((a: Json) => a.appName === inOrg.appName);
    assert.equal(listed.organization, s);
    const [row] = await f.svc.db.sql`select o.slug from apps a
      join organizations o on o.id = a.organization_id where a.app_name = ${inOrg.appName}`;
    assert.equal(row.slug, s);
  });

  test("an unknown or malformed organization is 400 naming organization", async (f) => {
    for (const organization of [slug("none"), "Not A Slug"]) {
      const name = slug("app");
      const { status, body } = await f.api("POST", "/apps", {
        appName: name,
        name: "X",
        authType: "signed_request",
        organization,
      });
      assert.equal(status, 400, organization);
      assert.deepEqual(body.errors.map((e: Json) => e.path), ["organization"]);
      const [{ count }] = await f.svc.db.sql`select count(*)::int from apps
        where app_name = ${name}`;
      assert.equal(count, 0, "nothing written");
    }
    const app = await createTestApp(f.svc, f.token, slug("app"));
    const patch = await f.api("PATCH", `/apps/${app.appName}`, { organization: slug("none") });
    assert.equal(patch.status, 400);
    assert.equal(patch.body.errors[0].path, "organization");
  });

  test("GET /apps?organization= lists that organization's apps", async (f) => {
    const s = await createOrganization(f);
    const inOrg = await createTestApp(f.svc, f.token, slug("app"), { organization: s });
    await createTestApp(f.svc, f.token, slug("app"));
    const { status, body } = await f.api("GET", `/apps?organization=${s}`);
    assert.equal(status, 200);
    assert.deepEqual(body.items.map((a: Json) => a.appName), [inOrg.appName]);
    const unknown = await f.api("GET", `/apps?organization=${slug("none")}`);
    assert.equal(unknown.status, 400);
    assert.equal(unknown.body.errors[0].path, "organization");
  });

  test("an app without sessions moves; its agents' external ids are forgotten", async (f) => {
    const app = await createTestApp(f.svc, f.token, slug("app"));
    const [{ id: appId }] = await f.svc.db.sql`select id from apps where app_name = ${app.appName}`;
    const email = `${uniqueId("a")}@example.com`;
    const [agent] = await f.svc.db.sql`insert into users (role, external_id, email)
      values ('agent', 'ext1', ${email}) returning id`;
    await f.svc.db.sql`insert into agent_external_ids (app_id, external_id, user_id)
      values (${appId}, 'ext1', ${agent.id})`;
    const s = await createOrganization(f);
    const { status, body } = await f.api("PATCH", `/apps/${app.appName}`, { organization: s });
    assert.equal(status, 200, JSON.stringify(body));
    assert.equal(body.organization, s);
    const [{ count }] = await f.svc.db.sql`select count(*)::int from agent_external_ids
      where app_id = ${appId}`;
    assert.equal(count, 0);
    // Its next launch with the same external id and e-mail makes an agent of the new organization.
    const launched = await launchOk(
      f.svc,
      app,
      launchPayload({ contactId: uniqueId("C") }, { id: "ext1", email }),
    );
    assert.notEqual(launched.agentId, agent.id);
    const [made] = await f.svc.db.sql`select o.slug from users u
      join organizations o on o.id = u.organization_id where u.id = ${launched.agentId}`;
    assert.equal(made.slug, s);
  });

  test("an app with sessions cannot move: 409 app_has_sessions", async (f) => {
    const app = await createTestApp(f.svc, f.token, slug("app"));
    await launchOk(f.svc, app, freshLaunch());
    const s = await createOrganization(f);
    const { status, body } = await f.api("PATCH", `/apps/${app.appName}`, {
      organization: s,
      name: "Renamed too",
    });
    assert.equal(status, 409);
    assert.equal(body.code, "app_has_sessions");
    assert.equal(body.errors[0].path, "organization");
    const after = await f.api("GET", `/apps/${app.appName}`);
    assert.equal(after.body.organization, "default");
    assert.notEqual(after.body.name, "Renamed too", "nothing of the change was written");
    const same = await f.api("PATCH", `/apps/${app.appName}`, { organization: "default" });
    assert.equal(same.status, 200, "naming its own organization is no move");
  });

  test("PATCH /users/{id} returns an agent's organization, null for an admin", async (f) => {
    const s = await createOrganization(f);
    const app = await createTestApp(f.svc, f.token, slug("app"), { organization: s });
    const { agentId } = await launchOk(f.svc, app, freshLaunch());
    const agent = await f.api("PATCH", `/users/${agentId}`, { disabled: false });
    assert.equal(agent.status, 200);
    assert.equal(agent.body.organization, s);
    const [admin] = await f.svc.db.sql`insert into users (role, email)
      values ('admin', ${`${uniqueId("root")}@example.com`}) returning id`;
    const adminUser = await f.api("PATCH", `/users/${admin.id}`, { disabled: false });
    assert.equal(adminUser.status, 200);
    assert.equal(adminUser.body.organization, null);
  });
}
