/**
 * The admin sessions list through app.request(): sessions of every organization, the
 * `?organization=<slug>` filter (through the session's app), an unknown slug, paging's link, the
 * navigation entry, and the sign-in a signed-out browser is sent to. One service per backend.
 */
import assert from "node:assert/strict";
import { type Backend, backends } from "../../helpers/db.ts";
import { startTestService, type TestService } from "../../helpers/service.ts";
import { sharedFixture, uniqueId } from "../../helpers/shared.ts";
import { type Admin, getAs, signInAdmin } from "../../helpers/admin_screens.ts";
import { createTestApp, launchOk, type TestApp } from "../../helpers/launch.ts";
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

/** A new organization (its slug) with an app in it. */
async function organizationWithApp(f: Fixture): Promise<{ slug: string; app: TestApp }> {
  const slug = uniqueId("org-").toLowerCase();
  const res = await f.svc.api("POST", "/api/v1/admin/organizations", f.token, { slug, name: slug });
  assert.equal(res.status, 201);
  await res.body?.cancel();
  const app = await createTestApp(f.svc, f.token, uniqueId("app-").toLowerCase(), {
    organization: slug,
  });
  return { slug, app };
}

/** A session launched through `app` for a customer named `lastName`; its id. */
async function session(f: Fixture, app: TestApp, lastName: string): Promise<number> {
  const { sessionId } = await launchOk(
    f.svc,
    app,
    launchPayload({ contactId: uniqueId("C"), contactLastName: lastName }, { id: uniqueId("a") }),
  );
  return sessionId;
}

/** The text of a screen. */
async function page(f: Fixture, path: string): Promise<{ status: number; html: string }> {
  const res = await getAs(f.svc, f.admin, path);
  return { status: res.status, html: await res.text() };
}

/** The body rows of the sessions table (each row's HTML). */
function rows(html: string): string[] {
  const table = html.split(`data-testid="sessions"`)[1]?.split("</table>")[0] ?? "";
  const body = table.split("<tbody>")[1]?.split("</tbody>")[0] ?? "";
  return body.split("</tr>").filter((row) => row.includes("<td"));
}

/** The row of session `id`, or undefined. */
function rowOf(html: string, id: number): string | undefined {
  return rows(html).find((row) => row.startsWith(`<tr><td>${id}</td>`));
}

for (const backend of backends) {
  const fixture = sharedFixture(() => start(backend), (f) => f.svc.close());
  const test = (name: string, fn: (f: Fixture) => Promise<void>) =>
    Deno.test({
      name: `admin screens: sessions ${name} [${backend.name}]`,
      sanitizeOps: false,
      sanitizeResources: false,
      fn: async () => await fn(await fixture()),
    });

  test("list shows sessions of every organization, newest first", async (f) => {
    const a = await organizationWithApp(f);
    const b = await organizationWithApp(f);
    const first = await session(f, a.app, "Alpha");
    const second = await session(f, b.app, "Bravo");
    const { status, html } = await page(f, "/admin/sessions");
    assert.equal(status, 200);
    assert.match(html, /<h1>Sessions<\/h1>/);
    assert.match(html, /<th[^>]*>Organization<\/th>/);
    const rowA = rowOf(html, first);
    const rowB = rowOf(html, second);
    assert.ok(rowA && rowB, "both organizations' sessions are listed");
    assert.ok(rowA.includes(`<code>${a.slug}</code>`) && rowA.includes(a.app.appName));
    assert.ok(rowA.includes("Alpha"), "the customer's name");
    assert.ok(rowB.includes(`<code>${b.slug}</code>`) && rowB.includes(b.app.appName));
    assert.match(rowA, /<a href="\/admin\/users\/\d+">/, "the assignee links to the user");
    assert.match(rowA, /<td>open<\/td>/);
    const ids = rows(html).map((row) => Number(row.match(/^<tr><td>(\d+)<\/td>/)?.[1]));
    assert.ok(ids.indexOf(second) < ids.indexOf(first), "newest first");
  });

  test("filter shows only one organization's sessions", async (f) => {
    const a = await organizationWithApp(f);
    const b = await organizationWithApp(f);
    const own = await session(f, a.app, "Own");
    const foreign = await session(f, b.app, "Foreign");
    const { status, html } = await page(f, `/admin/sessions?organization=${a.slug}`);
    assert.equal(status, 200);
    const listed = rows(html);
    assert.equal(listed.length, 1, "only the one session of the organization");
    assert.ok(rowOf(html, own)?.includes(`<code>${a.slug}</code>`));
    assert.equal(rowOf(html, foreign), undefined);
    assert.match(html, /<label for="organization-filter">Organization<\/label>/);
    assert.match(html, new RegExp(`<option[^>]* value="${a.slug}" selected>`));
  });

  test("before= pages to older sessions, keeping the filter", async (f) => {
    const { slug, app } = await organizationWithApp(f);
    const older = await session(f, app, "Older");
    const newer = await session(f, app, "Newer");
    const { html } = await page(f, `/admin/sessions?organization=${slug}&before=${newer}`);
    assert.deepEqual(rows(html).map((row) => row.match(/^<tr><td>(\d+)<\/td>/)?.[1]), [
      String(older),
    ]);
  });

  test("an organization without sessions shows the empty state", async (f) => {
    const { slug } = await organizationWithApp(f);
    const { status, html } = await page(f, `/admin/sessions?organization=${slug}`);
    assert.equal(status, 200);
    assert.deepEqual(rows(html), []);
    assert.match(html, /<p class="empty">No sessions in this organization yet/);
    assert.doesNotMatch(html, /Next page/);
  });

  test("an unknown organization slug is a 404 page, like the other lists", async (f) => {
    const unknown = uniqueId("org-").toLowerCase();
    const { status, html } = await page(f, `/admin/sessions?organization=${unknown}`);
    assert.equal(status, 404);
    assert.match(html, new RegExp(`No organization has the slug ${unknown}`));
    const users = await page(f, `/admin/users?organization=${unknown}`);
    assert.equal(users.status, status, "the users list answers alike");
  });

  test("is in the navigation, marked current on its page", async (f) => {
    const { html } = await page(f, "/admin/sessions");
    assert.match(html, /<a href="\/admin\/sessions" aria-current="page">Sessions<\/a>/);
    const apps = await page(f, "/admin/apps");
    assert.match(apps.html, /<a href="\/admin\/sessions"\s*>Sessions<\/a>/);
  });

  test("signed out, a browser is sent to sign-in and a JSON client gets 401", async (f) => {
    const res = await f.svc.request("/admin/sessions?organization=default", {
      headers: { Accept: "text/html" },
    });
    await res.body?.cancel();
    assert.equal(res.status, 303);
    assert.equal(
      res.headers.get("Location"),
      `/admin/login?next=${encodeURIComponent("/admin/sessions?organization=default")}`,
    );
    const json = await f.svc.request("/admin/sessions", {
      headers: { Accept: "application/json" },
    });
    assert.equal(json.status, 401);
    assert.equal((await json.json()).code, "login_required");
  });
}
