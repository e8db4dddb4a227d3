/**
 * The admin screens' form handlers through app.request() (no browser): sign-in, the CSRF guard,
 * the app, team and guided-path forms, the renamed routes and the linked static files. One service
 * per backend is shared; every test signs in and creates what it needs under unique names.
 */
import assert from "node:assert/strict";
import { FIELD_RULES } from "../../../server/launch/contract.ts";
import { type Backend, backends } from "../../helpers/db.ts";
import { startTestService, type TestService } from "../../helpers/service.ts";
import { sharedFixture, uniqueId } from "../../helpers/shared.ts";
import { postSignIn } from "../../helpers/sign_in.ts";
import { type Admin, getAs, postAs, signInAdmin } from "../../helpers/admin_screens.ts";

const ADMIN = { email: "root@example.com", password: "admin-password-123" };

/** Reverses hono/jsx's HTML escaping of text and attribute values. */
function unescape(html: string): string {
  return html.replaceAll("&lt;", "<").replaceAll("&gt;", ">").replaceAll("&quot;", '"')
    .replaceAll("&#39;", "'").replaceAll("&amp;", "&");
}

/** The message shown under the field `name`, or null. */
function fieldError(html: string, name: string): string | null {
  const m = html.match(new RegExp(`<p class="field-error" id="f-${name}-error">([^<]*)</p>`));
  return m ? unescape(m[1]) : null;
}

/** Posts the admin sign-in form. */
async function signInRequest(
  svc: TestService,
  password: string,
  next = "/admin/apps",
): Promise<Response> {
  return await postSignIn(svc, "/admin/login", { email: ADMIN.email, password, next });
}

/** Signs in as the screens' administrator. */
function signIn(svc: TestService): Promise<Admin> {
  return signInAdmin(svc, ADMIN);
}

const get = getAs;
const post = postAs;

function startScreens(backend: Backend): Promise<TestService> {
  return startTestService(backend, {
    ADMIN_EMAIL: ADMIN.email,
    ADMIN_PASSWORD: ADMIN.password,
  });
}

for (const backend of backends) {
  const service = sharedFixture(() => startScreens(backend), (svc) => svc.close());
  const test = (name: string, fn: (svc: TestService) => Promise<void>) =>
    Deno.test({
      name: `admin ${name} [${backend.name}]`,
      sanitizeOps: false,
      sanitizeResources: false,
      fn: async () => await fn(await service()),
    });

  test("sign-in with the right password sets the login cookie and goes to next", async (svc) => {
    const res = await signInRequest(svc, ADMIN.password, "/admin/teams");
    assert.equal(res.status, 303);
    assert.equal(res.headers.get("Location"), "/admin/teams");
    const cookie = res.headers.get("Set-Cookie")!;
    assert.match(cookie, /^admin_login=[^;]+;/);
    assert.match(cookie, /Path=\/admin/);
    assert.match(cookie, /HttpOnly/);
    assert.match(cookie, /SameSite=Lax/);
    const teams = await svc.request("/admin/teams", {
      headers: { Cookie: cookie.split(";")[0] },
    });
    assert.equal(teams.status, 200);
    assert.match(await teams.text(), /<h1>Teams<\/h1>/);
  });

  test("sign-in with a wrong password is refused with the form again", async (svc) => {
    const res = await signInRequest(svc, "wrong-password");
    assert.equal(res.status, 401);
    assert.doesNotMatch(res.headers.get("Set-Cookie") ?? "", /admin_login=/, "no login");
    const html = await res.text();
    assert.match(html, /role="alert">Wrong e-mail or password, or not an administrator\./);
    assert.match(html, new RegExp(`id="f-email"[^>]*value="${ADMIN.email}"`));
    const screen = await svc.request("/admin/apps");
    assert.equal(screen.status, 303, "still signed out");
    assert.equal(screen.headers.get("Location"), "/admin/login?next=%2Fadmin%2Fapps");
  });

  test("form without the right CSRF token is refused and writes nothing", async (svc) => {
    const admin = await signIn(svc);
    const teamId = uniqueId("T");
    for (const csrf of [null, "forged-token"]) {
      const res = await post(svc, admin, "/admin/teams", { teamId, name: "Forged" }, csrf);
      assert.equal(res.status, 403);
      assert.match(await res.text(), /missing or wrong CSRF token/);
    }
    // Not the CSRF token's fault: a body that is no form, and the token sent twice, say so.
    const json = await svc.request("/admin/teams", {
      method: "POST",
      headers: { Cookie: admin.cookie, "Content-Type": "application/json" },
      body: JSON.stringify({ csrf: admin.csrf, teamId, name: "As JSON" }),
    });
    assert.equal(json.status, 415);
    assert.match(await json.text(), /take HTML forms.*\/api\/v1\/admin/s);
    const twice = await post(svc, admin, "/admin/teams", {
      csrf: admin.csrf,
      teamId,
      name: "Twice",
    });
    assert.equal(twice.status, 400);
    assert.match(await twice.text(), /CSRF token 2\s+times: send each field once/);
    const [{ count }] = await svc.db.sql`select count(*) from teams where team_id = ${teamId}`;
    assert.equal(count, 0);
  });

  test("app form creates an app and shows its launch URL, secret and template", async (svc) => {
    const admin = await signIn(svc);
    const appName = uniqueId("crm-").toLowerCase();
    const res = await post(svc, admin, "/admin/apps", {
      appName,
      name: "Acme CRM",
      authType: "signed_request",
      implementor: "default",
      frameAncestors: "https://crm.example.com\nhttps://*.example.com",
      clientScopes: ["sessions:read", "sessions:write"],
      enabled: "on",
      save: "1",
    });
    assert.equal(res.status, 201);
    const html = await res.text();
    assert.match(html, new RegExp(`<h1>${appName}</h1>`));
    assert.match(html, /role="status">Created\.<\/p>/);
    assert.match(html, /data-testid="new-secret">[A-Za-z0-9]{40}</);
    assert.ok(
      html.includes(`data-testid="launch-url">http://portal.test/portal/api/auth/app/${appName}<`),
    );
    const template = JSON.parse(unescape(html.match(/data-testid="template">([^<]*)</)![1]));
    assert.equal(template.algorithm, "HMACSHA256");
    assert.match(html, /<script src="\/assets\/admin-copy-template\.js\?v=[0-9a-z]+" defer>/);
    const [row] = await svc.db.sql`select name, frame_ancestors, enabled from apps
      where app_name = ${appName}`;
    assert.equal(row.name, "Acme CRM");
    assert.deepEqual(row.frameAncestors, ["https://crm.example.com", "https://*.example.com"]);
    assert.equal(row.enabled, true);
  });

  test("app form with invalid fields is shown again with each field's message", async (svc) => {
    const admin = await signIn(svc);
    const res = await post(svc, admin, "/admin/apps", {
      appName: "bad name!",
      name: "",
      authType: "signed_request",
      implementor: "default",
      frameAncestors: "not-an-origin",
      clientScopes: "sessions:read",
      save: "1",
    });
    assert.equal(res.status, 400);
    const html = await res.text();
    assert.match(html, /<h1>New app<\/h1>/);
    assert.match(html, /role="alert">Not saved: fix the fields marked below\./);
    assert.match(fieldError(html, "appName") ?? "", /letters, digits/);
    assert.equal(fieldError(html, "name"), "required");
    assert.match(fieldError(html, "frameAncestors") ?? "", /expected an origin/);
    assert.match(html, /id="f-appName"[^>]*aria-invalid="true"/);
    assert.match(html, /id="f-appName"[^>]*value="bad name!"/, "what was typed is kept");
    const [{ count }] = await svc.db.sql`select count(*) from apps where app_name = 'bad name!'`;
    assert.equal(count, 0);
  });

  test("app form refuses a wildcard on a public suffix (checked as the form is saved)", async (svc) => {
    const admin = await signIn(svc);
    const res = await post(svc, admin, "/admin/apps", {
      appName: "suffix",
      name: "Suffix",
      authType: "signed_request",
      implementor: "default",
      frameAncestors: "https://crm.example.com\nhttps://*.co.uk",
      clientScopes: "sessions:read",
      save: "1",
    });
    assert.equal(res.status, 400);
    assert.match(fieldError(await res.text(), "frameAncestors") ?? "", /public suffix co\.uk/);
    const [{ count }] = await svc.db.sql`select count(*) from apps where app_name = 'suffix'`;
    assert.equal(count, 0);
  });

  test("team form refuses an invalid team id with the contract's message", async (svc) => {
    const admin = await signIn(svc);
    const res = await post(svc, admin, "/admin/teams", { teamId: "T 1", name: "Tier 1" });
    assert.equal(res.status, 400);
    const html = await res.text();
    assert.equal(fieldError(html, "teamId"), FIELD_RULES.teamId.message);
    assert.match(html, /id="f-name"[^>]*value="Tier 1"/);
    const teamId = uniqueId("T.1_");
    const ok = await post(svc, admin, "/admin/teams", { teamId, name: "Tier 1" });
    assert.equal(ok.status, 303);
    assert.equal(ok.headers.get("Location"), "/admin/teams");
    const [team] = await svc.db.sql`select name from teams where team_id = ${teamId}`;
    assert.equal(team.name, "Tier 1");
  });

  test("guided-path forms create a category and a path", async (svc) => {
    const admin = await signIn(svc);
    const category = uniqueId("Printers ");
    const made = await post(svc, admin, "/admin/guided-paths/categories", { name: category });
    assert.equal(made.status, 303);
    assert.equal(made.headers.get("Location"), "/admin/guided-paths");
    const [cat] = await svc.db.sql`select uid from path_categories where name = ${category}`;
    const list = await (await get(svc, admin, "/admin/guided-paths")).text();
    assert.match(list, /<h1>Guided paths<\/h1>/);
    assert.ok(list.includes(`<h2>${category}</h2>`));

    const title = uniqueId("Printer offline ");
    const res = await post(svc, admin, "/admin/guided-paths/paths", {
      title,
      categoryUid: cat.uid,
      tags: "Printer, Offline",
      published: "on",
      steps: "# Check the cable\nPlug it in.\n\n# Restart\nTurn it off and on.",
      translations: '{"fr": {"title": "Imprimante hors ligne"}}',
    });
    assert.equal(res.status, 303);
    const location = res.headers.get("Location")!;
    const uid = location.match(/^\/admin\/guided-paths\/paths\/([0-9a-f-]{36})\?saved=1$/)?.[1];
    assert.ok(uid, location);
    const [p] = await svc.db.sql`select category_uid, tags, steps, translations, published
      from paths where uid = ${uid}`;
    assert.equal(p.categoryUid, cat.uid);
    assert.deepEqual(p.tags, ["printer", "offline"]);
    assert.deepEqual(p.steps, [
      { title: "Check the cable", body: "Plug it in." },
      { title: "Restart", body: "Turn it off and on." },
    ]);
    assert.equal(p.translations.fr.title, "Imprimante hors ligne");
    assert.equal(p.published, true);
    const page = await (await get(svc, admin, location)).text();
    assert.match(page, /role="status">Saved\.<\/p>/);

    // JSON inside a form field: half a surrogate pair in it is refused, naming where.
    const half = await post(svc, admin, "/admin/guided-paths/paths", {
      title: uniqueId("Half "),
      categoryUid: cat.uid,
      steps: "# One\nDo it.",
      translations: '{"fr": {"title": "Imprimante \\ud83d"}}',
    });
    assert.equal(half.status, 400);
    assert.match(
      fieldError(await half.text(), "translations") ?? "",
      /^fr\.title: .*surrogate pair/,
    );

    const blank = await post(svc, admin, "/admin/guided-paths/categories", { name: " " });
    assert.equal(blank.status, 400);
    assert.equal(fieldError(await blank.text(), "name"), "required");
  });

  test("old /admin/catalog links redirect permanently to /admin/guided-paths", async (svc) => {
    const list = await svc.request("/admin/catalog");
    assert.equal(list.status, 301);
    assert.equal(list.headers.get("Location"), "/admin/guided-paths");
    const uid = crypto.randomUUID();
    const path = await svc.request(`/admin/catalog/paths/${uid}?saved=1`);
    assert.equal(path.status, 301);
    assert.equal(path.headers.get("Location"), `/admin/guided-paths/paths/${uid}?saved=1`);
  });

  test("screens are titled Apps, Guided paths and Launch log in the navigation", async (svc) => {
    const admin = await signIn(svc);
    const apps = await (await get(svc, admin, "/admin/apps")).text();
    assert.match(apps, /<h1>Apps<\/h1>/);
    assert.match(apps, /<a href="\/admin\/apps" aria-current="page">Apps<\/a>/);
    assert.match(apps, /<a href="\/admin\/guided-paths"\s*>Guided paths<\/a>/);
    assert.match(apps, /<a href="\/admin\/launches"\s*>Launch log<\/a>/);
    assert.doesNotMatch(apps, /Authentications|New authentication|catalog/);
    const log = await (await get(svc, admin, "/admin/launches")).text();
    assert.match(log, /<h1>Launch log<\/h1>/);
    assert.match(log, /<a href="\/admin\/launches" aria-current="page">Launch log<\/a>/);
  });

  test("pages link the admin stylesheet and script as static files", async (svc) => {
    const login = await (await svc.request("/admin/login")).text();
    assert.doesNotMatch(login, /<style/);
    const href = login.match(/<link rel="stylesheet" href="(\/assets\/admin\.css\?v=[0-9a-z]+)"/)
      ?.[1];
    assert.ok(href, "the stylesheet is linked");
    const css = await svc.request(href);
    assert.equal(css.status, 200);
    assert.match(css.headers.get("Content-Type")!, /text\/css/);
    assert.match(await css.text(), /\.field-error\s*\{/);
    const js = await svc.request("/assets/admin-copy-template.js");
    assert.equal(js.status, 200);
    assert.match(js.headers.get("Content-Type")!, /javascript/);
    const script = await js.text();
    assert.match(script, /getElementById\("copy-template"\)/);
    assert.match(script, /navigator\.clipboard\.writeText/);
  });
}
