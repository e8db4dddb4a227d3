/**
 * Organizations on the admin screens through app.request(): the Organizations page and its forms
 * (CSRF, inline refusals), the app form's organization select, and the apps, users and teams lists
 * filtered by organization. One service per backend is shared; every test makes its own names.
 */
import assert from "node:assert/strict";
import { type Backend, backends } from "../../helpers/db.ts";
import { startTestService, type TestService } from "../../helpers/service.ts";
import { sharedFixture, uniqueId } from "../../helpers/shared.ts";
import { type Admin, getAs, postAs, signInAdmin } from "../../helpers/admin_screens.ts";
import { createTestApp, launchOk } from "../../helpers/launch.ts";
import { launchPayload } from "../../helpers/payload.ts";

const ADMIN = { email: "root@example.com", password: "admin-password-123" };

/** The shared service, an API token and a signed-in administrator. */
interface Fixture {
  svc: TestService;
  token: string;
  admin: Admin;
}

async function start(backend: Backend): Promise<Fixture> {
  const svc = await startTestService(backend, {
    ADMIN_EMAIL: ADMIN.email,
    ADMIN_PASSWORD: ADMIN.password,
  });
  return { svc, token: await svc.adminToken(), admin: await signInAdmin(svc, ADMIN) };
}

/** A new organization slug. */
function slug(): string {
  return uniqueId("org-").toLowerCase();
}

/** Creates an organization through the admin API. */
async function organization(f: Fixture): Promise<string> {
  const s = slug();
  const res = await f.svc.api("POST", "/api/v1/admin/organizations", f.token, { slug: s, name: s });
  assert.equal(res.status, 201);
  await res.body?.cancel();
  return s;
}

/** The text of a screen. */
async function page(f: Fixture, path: string): Promise<{ status: number; html: string }> {
  const res = await getAs(f.svc, f.admin, path);
  return { status: res.status, html: await res.text() };
}

/** The body rows of the table `testid` (each row's HTML). */
function rows(html: string, testid: string): string[] {
  const table = html.split(`data-testid="${testid}"`)[1]?.split("</table>")[0] ?? "";
  const body = table.split("<tbody>")[1]?.split("</tbody>")[0] ?? "";
  return body.split("</tr>").filter((row) => row.includes("<td"));
}

/** A pattern matching the option `value` of a select, selected or not. */
function option(value: string, selected = false): RegExp {
  return new RegExp(`<option[^>]* value="${value}" ${selected ? "selected" : ""}>`);
}

for (const backend of backends) {
  const fixture = sharedFixture(() => start(backend), (f) => f.svc.close());
  const test = (name: string, fn: (f: Fixture) => Promise<void>) =>
    Deno.test({
      name: `admin screens: organizations ${name} [${backend.name}]`,
      sanitizeOps: false,
      sanitizeResources: false,
      fn: async () => await fn(await fixture()),
    });

  test("page lists them and is in the navigation", async (f) => {
    const { status, html } = await page(f, "/admin/organizations");
    assert.equal(status, 200);
    assert.match(html, /<h1>Organizations<\/h1>/);
    assert.match(html, /<a href="\/admin\/organizations" aria-current="page">Organizations<\/a>/);
    assert.ok(rows(html, "organizations").some((r) => r.includes("<code>default</code>")));
    const apps = await page(f, "/admin/apps");
    assert.match(apps.html, /<a href="\/admin\/organizations"\s*>Organizations<\/a>/);
  });

  test("pages with organization fields label each one, with unique ids", async (f) => {
    await organization(f);
    for (const path of ["/admin/organizations", "/admin/apps", "/admin/users", "/admin/teams"]) {
      const { html } = await page(f, path);
      const ids = [...html.matchAll(/ id="([^"]+)"/g)].map((m) => m[1]);
      assert.equal(new Set(ids).size, ids.length, `${path}: unique ids`);
      const fields = [...html.matchAll(/<(?:input|select|textarea)\b[^>]*>/g)].map((m) => m[0])
        .filter((tag) => !/type="hidden"/.test(tag));
      const own = path === "/admin/organizations" ? /name="slug"/ : /name="organization"/;
      assert.ok(fields.some((tag) => own.test(tag)), `${path}: its organization field is seen`);
      for (const tag of fields) {
        const id = tag.match(/ id="([^"]+)"/)?.[1];
        assert.ok(id && html.includes(`<label for="${id}"`), `${path}: ${tag} has a label`);
      }
    }
  });

  test("add form creates one; without the CSRF token nothing", async (f) => {
    const s = slug();
    const forged = await postAs(f.svc, f.admin, "/admin/organizations", {
      slug: s,
      name: "Forged",
    }, null);
    assert.equal(forged.status, 403);
    await forged.body?.cancel();
    const res = await postAs(f.svc, f.admin, "/admin/organizations", { slug: s, name: "Acme" });
    assert.equal(res.status, 303);
    assert.equal(res.headers.get("Location"), `/admin/organizations?created=${s}`);
    const after = await page(f, res.headers.get("Location")!);
    assert.match(after.html, new RegExp(`role="status">Organization ${s} created.`));
    const [row] = await f.svc.db.sql`select name from organizations where slug = ${s}`;
    assert.equal(row.name, "Acme");
  });

  test("add form shows a bad or taken slug next to the field", async (f) => {
    const bad = await postAs(f.svc, f.admin, "/admin/organizations", { slug: "Bad!", name: "X" });
    assert.equal(bad.status, 400);
    assert.match(await bad.text(), /id="f-slug-error">expected 2-63 lowercase/);
    const taken = await postAs(f.svc, f.admin, "/admin/organizations", {
      slug: "default",
      name: "X",
    });
    assert.equal(taken.status, 409);
    assert.match(await taken.text(), /id="f-slug-error">already used by another organization/);
  });

  test("rename form changes the name", async (f) => {
    const s = await organization(f);
    const res = await postAs(f.svc, f.admin, `/admin/organizations/${s}/rename`, {
      name: "New name",
    });
    assert.equal(res.status, 303);
    await res.body?.cancel();
    const [row] = await f.svc.db.sql`select name from organizations where slug = ${s}`;
    assert.equal(row.name, "New name");
  });

  test("delete shows a refusal inline and needs the confirmation box", async (f) => {
    const owner = await organization(f);
    await createTestApp(f.svc, f.token, uniqueId("app-").toLowerCase(), { organization: owner });
    const refused = await postAs(f.svc, f.admin, "/admin/organizations/delete", {
      delete: owner,
      confirm: "on",
    });
    assert.equal(refused.status, 409);
    const html = await refused.text();
    assert.match(html, new RegExp(`role="alert">Not deleted: Organization ${owner} still owns 1`));
    assert.match(html, /<h1>Organizations<\/h1>/, "on the Organizations page");
    const dflt = await postAs(f.svc, f.admin, "/admin/organizations/delete", {
      delete: "default",
      confirm: "on",
    });
    assert.equal(dflt.status, 409);
    assert.match(await dflt.text(), /default organization cannot be deleted/);
    const empty = await organization(f);
    const unconfirmed = await postAs(f.svc, f.admin, "/admin/organizations/delete", {
      delete: empty,
    });
    assert.equal(unconfirmed.status, 400);
    await unconfirmed.body?.cancel();
    const done = await postAs(f.svc, f.admin, "/admin/organizations/delete", {
      delete: empty,
      confirm: "on",
    });
    assert.equal(done.status, 303);
    await done.body?.cancel();
    const [{ count }] = await f.svc.db.sql`select count(*)::int from organizations
      where slug in (${owner}, ${empty})`;
    assert.equal(count, 1, "only the one with an app is left");
  });

  test("app form picks the organization from a select", async (f) => {
    const s = await organization(f);
    const form = await page(f, "/admin/apps/new");
    assert.match(form.html, /<label for="f-organization">Organization<\/label>/);
    assert.match(form.html, /<select id="f-organization" name="organization"/);
    assert.match(form.html, new RegExp(`value="${s}" >${s} \\(${s}\\)</option>`));
    assert.match(form.html, option("default", true), "default is chosen for a new app");
    const appName = uniqueId("app-").toLowerCase();
    const res = await postAs(f.svc, f.admin, "/admin/apps", {
      appName,
      name: "In org",
      organization: s,
      authType: "signed_request",
      implementor: "default",
      clientScopes: ["sessions:read"],
      save: "1",
    });
    assert.equal(res.status, 201);
    assert.match(await res.text(), new RegExp(`<code>${s}</code>`), "the app page shows it");
    const [row] = await f.svc.db.sql`select o.slug from apps a
      join organizations o on o.id = a.organization_id where a.app_name = ${appName}`;
    assert.equal(row.slug, s);
    const edit = await page(f, `/admin/apps/${appName}/edit`);
    assert.match(edit.html, option(s, true));
  });

  test("app form shows a refused move next to the organization field", async (f) => {
    const app = await createTestApp(f.svc, f.token, uniqueId("app-").toLowerCase());
    await launchOk(f.svc, app, launchPayload({ contactId: uniqueId("C") }, { id: uniqueId("a") }));
    const s = await organization(f);
    const res = await postAs(f.svc, f.admin, `/admin/apps/${app.appName}`, {
      name: "Moved",
      organization: s,
      authType: "signed_request",
      implementor: "default",
      clientScopes: ["sessions:read"],
      save: "1",
    });
    assert.equal(res.status, 409);
    assert.match(await res.text(), /id="f-organization-error">the app has sessions/);
  });

  test("apps list shows the organization and filters by it", async (f) => {
    const s = await organization(f);
    const inOrg = await createTestApp(f.svc, f.token, uniqueId("app-").toLowerCase(), {
      organization: s,
    });
    const other = await createTestApp(f.svc, f.token, uniqueId("app-").toLowerCase());
    const all = await page(f, "/admin/apps");
    assert.match(all.html, /<th[^>]*>Organization<\/th>/);
    assert.match(all.html, /<label for="organization-filter">Organization<\/label>/);
    const filtered = await page(f, `/admin/apps?organization=${s}`);
    const listed = rows(filtered.html, "apps");
    assert.equal(listed.length, 1);
    assert.ok(listed[0].includes(inOrg.appName) && listed[0].includes(`<code>${s}</code>`));
    assert.ok(!filtered.html.includes(other.appName));
    assert.match(filtered.html, option(s, true));
    const unknown = await page(f, `/admin/apps?organization=${slug()}`);
    assert.equal(unknown.status, 404);
  });

  test("users list shows agents' organization and filters by it", async (f) => {
    const s = await organization(f);
    const app = await createTestApp(f.svc, f.token, uniqueId("app-").toLowerCase(), {
      organization: s,
    });
    const email = `${uniqueId("agent")}@example.com`;
    await launchOk(f.svc, app, launchPayload({ contactId: uniqueId("C") }, { id: "x1", email }));
    const filtered = await page(f, `/admin/users?organization=${s}`);
    const listed = rows(filtered.html, "users");
    assert.equal(listed.length, 1);
    assert.ok(listed[0].includes(email) && listed[0].includes(`<code>${s}</code>`));
    const all = await page(f, "/admin/users?role=admin");
    assert.match(rows(all.html, "users")[0], /all \(administrator\)/);
  });

  test("teams list filters by organization; the add form puts a team in one", async (f) => {
    const s = await organization(f);
    const teamId = uniqueId("T");
    const res = await postAs(f.svc, f.admin, "/admin/teams", {
      organization: s,
      teamId,
      name: "Org team",
    });
    assert.equal(res.status, 303);
    await res.body?.cancel();
    // The same team id in default is another team.
    const again = await postAs(f.svc, f.admin, "/admin/teams", { teamId, name: "Default team" });
    assert.equal(again.status, 303);
    await again.body?.cancel();
    const filtered = await page(f, `/admin/teams?organization=${s}`);
    const listed = rows(filtered.html, "teams");
    assert.equal(listed.length, 1);
    assert.ok(listed[0].includes(teamId) && listed[0].includes(`<code>${s}</code>`));
    const [{ count }] = await f.svc.db.sql`select count(*)::int from teams
      where team_id = ${teamId}`;
    assert.equal(count, 2);
  });

  test("user page offers only the teams of the agent's organization", async (f) => {
    const s = await organization(f);
    const app = await createTestApp(f.svc, f.token, uniqueId("app-").toLowerCase(), {
      organization: s,
    });
    const { agentId } = await launchOk(
      f.svc,
      app,
      launchPayload({ contactId: uniqueId("C") }, { id: uniqueId("a") }),
    );
    const own = uniqueId("T");
    const foreign = uniqueId("T");
    for (const [organization, teamId] of [[s, own], ["default", foreign]]) {
      const res = await postAs(f.svc, f.admin, "/admin/teams", {
        organization,
        teamId,
        name: teamId,
      });
      assert.equal(res.status, 303);
      await res.body?.cancel();
    }
    const teams = await f.svc.db.sql`select id, team_id from teams
      where team_id in (${own}, ${foreign})`;
    const idOf = (teamId: string) => String(teams.find((t) => t.teamId === teamId)!.id);
    const user = await page(f, `/admin/users/${agentId}`);
    assert.match(user.html, new RegExp(`\\(${own}\\)</label>`));
    assert.doesNotMatch(user.html, new RegExp(foreign), "another organization's team");
    const [agent] = await f.svc.db.sql`select email from users where id = ${agentId}`;
    const saved = await postAs(f.svc, f.admin, `/admin/users/${agentId}`, {
      email: agent.email,
      firstName: "Ada",
      lastName: "Lovelace",
      teamIds: [idOf(own), idOf(foreign)],
    });
    assert.equal(saved.status, 303);
    await saved.body?.cancel();
    const joined = await f.svc.db.sql`select t.team_id from team_members m
      join teams t on t.id = m.team_id where m.user_id = ${agentId}`;
    assert.deepEqual(joined.map((r) => r.teamId), [own], "a foreign team is not joined");
  });
}
