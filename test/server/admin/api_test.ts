/**
 * The admin JSON API under /api/v1/admin. One service per backend is shared by the tests of this
 * file; every test creates what it needs under unique names, so any one runs alone (--filter).
 */
import assert from "node:assert/strict";
import { backends } from "../../helpers/db.ts";
import { sharedFixture, uniqueId } from "../../helpers/shared.ts";
import type { Json } from "../../helpers/payload.ts";
import { postSignIn } from "../../helpers/sign_in.ts";
import { type AdminApi, startAdminApi } from "../../helpers/admin_api.ts";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** A new lower-case App Name. */
function appName(prefix = "app"): string {
  return uniqueId(`${prefix}-`).toLowerCase();
}

for (const backend of backends) {
  const fixture = sharedFixture(() => startAdminApi(backend), (f) => f.svc.close());
  const test = (name: string, fn: (f: AdminApi) => Promise<void>) =>
    Deno.test({
      name: `admin API ${name} [${backend.name}]`,
      sanitizeOps: false,
      sanitizeResources: false,
      fn: async () => await fn(await fixture()),
    });

  test("POST /apps creates an app, generating the API key", async ({ svc, api }) => {
    const name = appName("acme");
    const { status, body, res } = await api("POST", "/apps", {
      appName: name,
      name: "Acme CRM",
      authType: "signed_request",
      frameAncestors: ["https://crm.acme.test", "https://*.acme.test"],
    });
    assert.equal(status, 201);
    assert.equal(res.headers.get("Cache-Control"), "no-store");
    assert.match(body.apiKey, /^[A-Za-z0-9]{32}$/);
    assert.match(body.clientId, /^cid_/);
    assert.match(body.clientSecret, /^[A-Za-z0-9]{40}$/);
    assert.equal(body.implementor, "default");
    assert.equal(body.enabled, true);
    assert.deepEqual(body.clientScopes, ["sessions:read", "sessions:write"]);
    assert.equal(body.launchUrl, `http://portal.test/portal/api/auth/app/${name}`);
    assert.equal(body.template.algorithm, "HMACSHA256");
    assert.ok(body.template.context.environment.parameters.referenceNumber);
    const [row] = await svc.db.sql`select api_key_sealed from apps where app_name = ${name}`;
    assert.ok(!row.apiKeySealed.includes(body.apiKey), "API key stored in clear");
    const [client] = await svc.db.sql`select secret_hash from api_clients
      where client_id = ${body.clientId}`;
    assert.ok(!client.secretHash.includes(body.clientSecret));
  });

  test("the App Name is unique, case-insensitively: 409", async ({ api }) => {
    const name = appName();
    assert.equal(
      (await api("POST", "/apps", { appName: name, name: "One", authType: "signed_request" }))
        .status,
      201,
    );
    for (const again of [name, name.toUpperCase()]) {
      const { status, body } = await api("POST", "/apps", {
        appName: again,
        name: "Again",
        authType: "signed_request",
      });
      assert.equal(status, 409);
      assert.equal(body.code, "app_exists");
      assert.deepEqual(body.errors, [{
        path: "appName",
        code: "invalid",
        message: "already used by another app",
      }]);
    }
  });

  test("validation lists every problem by field", async ({ api }) => {
    const { status, body } = await api("POST", "/apps", {
      appName: "bad name!",
      authType: "magic",
      apiKey: "short",
      frameAncestors: ["https://ok.test/path"],
      color: "blue",
    });
    assert.equal(status, 400);
    assert.equal(body.code, "validation_failed");
    assert.equal(body.message, "Invalid request");
    const paths = body.errors.map((e: { path: string }) => e.path).sort();
    assert.deepEqual(paths, [
      "apiKey",
      "appName",
      "authType",
      "color",
      "frameAncestors.0",
      "name",
    ]);
    const byPath = Object.fromEntries(
      body.errors.map((e: { path: string; message: string }) => [e.path, e.message]),
    );
    assert.equal(byPath.name, "required");
    assert.equal(byPath.color, "unknown field");
  });

  test("oauth2_signed_request needs consumer key and secret, and no API key", async ({ api }) => {
    const name = appName("sf");
    const missing = await api("POST", "/apps", {
      appName: name,
      name: "SF",
      authType: "oauth2_signed_request",
      apiKey: "x".repeat(32),
    });
    assert.equal(missing.status, 400);
    assert.deepEqual(missing.body.errors.map((e: { path: string }) => e.path), [
      "apiKey",
      "consumerKey",
      "consumerSecret",
    ]);
    const ok = await api("POST", "/apps", {
      appName: name,
      name: "SF",
      authType: "oauth2_signed_request",
      consumerKey: "3MVG9consumer",
      consumerSecret: "c".repeat(32),
      implementor: "crm_standard",
    });
    assert.equal(ok.status, 201);
    assert.equal(ok.body.apiKey, null);
    assert.equal(ok.body.consumerSecret, "c".repeat(32));
  });

  test("wrong content type 415, malformed JSON 400, huge body 413", async ({ svc, token, api }) => {
    const text = await svc.request("/api/v1/admin/apps", {
      method: "POST",
      headers: { Authorization: `Bearer ${token}`, "Content-Type": "text/plain" },
      body: "appName=x",
    });
    assert.equal(text.status, 415);
    assert.match((await text.json()).message, /application\/json/);
    const broken = await svc.request("/api/v1/admin/apps", {
      method: "POST",
      headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
      body: '{\n  "appName": "x",\n  "name": nope\n}',
    });
    assert.equal(broken.status, 400);
    const said = await broken.json();
    assert.equal(said.code, "bad_request");
    assert.equal(said.message, "Malformed JSON in request body: it breaks at line 3, column 12");
    assert.deepEqual(said.errors, [
      { path: "(body)", code: "invalid_json", message: "line 3, column 12" },
    ]);
    const huge = await api("POST", "/apps", { name: "x".repeat(300 * 1024) });
    assert.equal(huge.status, 413);
  });

  test("GET /apps lists by App Name and /apps/:appName reads one; unknown is 404", async ({ api }) => {
    const [first, second] = [appName("b"), appName("c")];
    for (const name of [second, first]) {
      await api("POST", "/apps", { appName: name, name: "Acme CRM", authType: "signed_request" });
    }
    const list = await api("GET", "/apps");
    const names: string[] = list.body.items.map((a: { appName: string }) => a.appName);
    assert.deepEqual(names.filter((n) => n === first || n === second), [first, second]);
    assert.equal(list.body.items.some((a: Json) => "clientSecret" in a), false);
    const one = await api("GET", `/apps/${first.toUpperCase()}`);
    assert.equal(one.status, 200);
    assert.equal(one.body.appName, first);
    assert.equal(one.body.name, "Acme CRM");
    assert.equal(one.body.clientSecret, undefined);
    const none = await api("GET", "/apps/nope");
    assert.equal(none.status, 404);
    assert.deepEqual(none.body, {
      code: "app_not_found",
      message: "Unknown application: nope",
      requestId: none.res.headers.get("X-Request-Id"),
    });
    const badName = await api("GET", "/apps/bad%20name");
    assert.equal(badName.status, 400);
  });

  test("PATCH changes fields, switches type, refuses a taken name", async ({ api }) => {
    const [signed, oauth] = [appName("acme"), appName("sf")];
    await api("POST", "/apps", { appName: signed, name: "Acme CRM", authType: "signed_request" });
    await api("POST", "/apps", {
      appName: oauth,
      name: "SF",
      authType: "oauth2_signed_request",
      consumerKey: "3MVG9consumer",
      consumerSecret: "c".repeat(32),
    });
    const renamed = await api("PATCH", `/apps/${signed}`, { name: "Acme", enabled: false });
    assert.equal(renamed.status, 200);
    assert.equal(renamed.body.name, "Acme");
    assert.equal(renamed.body.enabled, false);
    const taken = await api("PATCH", `/apps/${signed}`, { appName: oauth.toUpperCase() });
    assert.equal(taken.status, 409);
    assert.equal(taken.body.code, "app_exists");
    const toSigned = await api("PATCH", `/apps/${oauth}`, { authType: "signed_request" });
    assert.equal(toSigned.status, 200);
    assert.match(toSigned.body.apiKey, /^[A-Za-z0-9]{32}$/);
    assert.equal(toSigned.body.consumerKey, null);
    assert.equal(toSigned.body.consumerSecret, null);
    const toOauth = await api("PATCH", `/apps/${oauth}`, { authType: "oauth2_signed_request" });
    assert.equal(toOauth.status, 400);
    assert.deepEqual(toOauth.body.errors.map((e: { path: string }) => e.path), [
      "consumerKey",
      "consumerSecret",
    ]);
  });

  test("rotating the API key returns a new one and stores it", async ({ api }) => {
    const name = appName();
    const before = (await api("POST", "/apps", {
      appName: name,
      name: "Rotate",
      authType: "signed_request",
    })).body.apiKey;
    const rotated = await api("POST", `/apps/${name}/api-key`);
    assert.equal(rotated.status, 200);
    assert.notEqual(rotated.body.apiKey, before);
    // Shown in full only by create and rotate; every other read masks it (last 4 characters).
    assert.equal(
      (await api("GET", `/apps/${name}`)).body.apiKey,
      `••••••••${rotated.body.apiKey.slice(-4)}`,
    );
  });

  test("rotating the client secret revokes the old secret and its tokens", async ({ svc, api }) => {
    const name = appName("rot");
    const created = await api("POST", "/apps", {
      appName: name,
      name: "Rot",
      authType: "signed_request",
    });
    const getToken = (secret: string) =>
      svc.request("/api/v1/oauth2/token", {
        method: "POST",
        body: new URLSearchParams({
          grant_type: "client_credentials",
          client_id: created.body.clientId,
          client_secret: secret,
        }),
      });
    const oldToken = (await (await getToken(created.body.clientSecret)).json()).access_token;
    const rotated = await api("POST", `/apps/${name}/client-secret`);
    assert.equal(rotated.status, 200);
    assert.equal(rotated.body.clientId, created.body.clientId);
    const refused = await getToken(created.body.clientSecret);
    assert.equal(refused.status, 400);
    await refused.body?.cancel();
    const fresh = await getToken(rotated.body.clientSecret);
    assert.equal(fresh.status, 200);
    await fresh.body?.cancel();
    const [row] = await svc.db.sql`select count(*) from access_tokens t
      join api_clients c on c.id = t.client_id
      where c.client_id = ${created.body.clientId} and t.revoked_at is not null`;
    assert.equal(row.count, 1);
    assert.ok(oldToken);
  });

  test("DELETE removes the app, its client and tokens", async ({ svc, api }) => {
    const name = appName("rot");
    const created = await api("POST", "/apps", {
      appName: name,
      name: "Rot",
      authType: "signed_request",
    });
    assert.equal((await api("DELETE", `/apps/${name}`)).status, 204);
    assert.equal((await api("GET", `/apps/${name}`)).status, 404);
    assert.equal((await api("DELETE", `/apps/${name}`)).status, 404);
    const [row] = await svc.db.sql`select count(*) from api_clients
      where client_id = ${created.body.clientId}`;
    assert.equal(row.count, 0);
  });

  test("generate-token returns 32 characters", async ({ api }) => {
    const { body } = await api("GET", "/generate-token");
    assert.match(body.token, /^[A-Za-z0-9]{32}$/);
  });

  test("field settings: both enabled by default, replaced by PUT", async ({ api }) => {
    const defaults = {
      session: { externalSessionId: true },
      consumer: { externalCustomerId: true },
    };
    const initial = await api("GET", "/field-settings");
    assert.deepEqual(initial.body, defaults);
    try {
      const value = {
        session: { externalSessionId: false },
        consumer: { externalCustomerId: true },
      };
      assert.deepEqual((await api("PUT", "/field-settings", value)).body, value);
      assert.deepEqual((await api("GET", "/field-settings")).body, value);
      const bad = await api("PUT", "/field-settings", { session: { externalSessionId: "no" } });
      assert.equal(bad.status, 400);
      assert.deepEqual(bad.body.errors.map((e: { path: string }) => e.path).sort(), [
        "consumer",
        "session.externalSessionId",
      ]);
    } finally {
      await api("PUT", "/field-settings", defaults);
    }
  });

  test("custom fields: create, duplicate 409, invalid name 400, delete", async ({ api }) => {
    const [priority, tier] = [uniqueId("priority"), uniqueId("tier")];
    const made = await api("POST", "/custom-fields", { name: priority, label: "Priority" });
    assert.equal(made.status, 201);
    assert.equal(made.body.label, "Priority");
    assert.equal((await api("POST", "/custom-fields", { name: tier })).body.label, tier);
    const twice = await api("POST", "/custom-fields", { name: priority });
    assert.equal(twice.status, 409);
    assert.equal(twice.body.code, "custom_field_exists");
    const bad = await api("POST", "/custom-fields", { name: "9lives" });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.errors[0].path, "name");
    const list = await api("GET", "/custom-fields");
    const names: string[] = list.body.items.map((f: { name: string }) => f.name);
    assert.deepEqual(names.filter((n) => n === priority || n === tier), [priority, tier]);
    const name = appName();
    await api("POST", "/apps", { appName: name, name: "Fields", authType: "signed_request" });
    const app = await api("GET", `/apps/${name}`);
    const templateFields = app.body.template.context.environment.parameters.customFields;
    assert.equal(templateFields[priority], "");
    assert.equal(templateFields[tier], "");
    assert.deepEqual(Object.keys(templateFields), names, "every configured field, in order");
    assert.equal((await api("DELETE", `/custom-fields/${tier}`)).status, 204);
    assert.equal((await api("DELETE", `/custom-fields/${tier}`)).status, 404);
  });

  test("categories and paths: create, read, update, soft delete", async ({ svc, api }) => {
    const cat = await api("POST", "/path-categories", { name: "Printers" });
    assert.equal(cat.status, 201);
    assert.match(cat.body.uid, UUID);
    const fixed = crypto.randomUUID().toUpperCase();
    const cat2 = await api("POST", "/path-categories", { uid: fixed, name: "Network" });
    assert.equal(cat2.body.uid, fixed.toLowerCase());
    assert.equal((await api("POST", "/path-categories", { uid: fixed, name: "x" })).status, 409);
    const badUid = await api("POST", "/path-categories", { uid: "not-a-uuid", name: "x" });
    assert.equal(badUid.status, 400);
    assert.match(badUid.body.errors[0].message, /8-4-4-4-12/);

    const path = await api("POST", "/paths", {
      title: "Printer offline",
      categoryUid: cat.body.uid,
      tags: ["Printer", "printer", "offline"],
      published: true,
      steps: [{ title: "Check cable", body: "Plug it in." }],
      translations: { fr: { title: "Imprimante hors ligne" } },
    });
    assert.equal(path.status, 201);
    assert.match(path.body.uid, UUID);
    assert.deepEqual(path.body.tags, ["printer", "offline"]);
    assert.equal(path.body.translations.fr.title, "Imprimante hors ligne");

    const orphan = await api("POST", "/paths", { title: "x", categoryUid: crypto.randomUUID() });
    assert.equal(orphan.status, 400);
    assert.equal(orphan.body.errors[0].path, "categoryUid");
    const badLang = await api("POST", "/paths", {
      title: "x",
      categoryUid: cat.body.uid,
      translations: { French: { title: "x" } },
    });
    assert.equal(badLang.status, 400);

    const patched = await api("PATCH", `/paths/${path.body.uid}`, {
      published: false,
      categoryUid: fixed,
    });
    assert.equal(patched.body.published, false);
    assert.equal(patched.body.categoryUid, fixed.toLowerCase());
    assert.equal((await api("GET", `/paths/${path.body.uid}`)).body.title, "Printer offline");
    const inCat = await api("GET", `/paths?categoryUid=${fixed}`);
    assert.equal(inCat.body.items.length, 1);

    const busy = await api("DELETE", `/path-categories/${fixed}`);
    assert.equal(busy.status, 409);
    assert.equal(busy.body.code, "category_not_empty");
    assert.match(busy.body.message, /still has 1 path/);
    const renamed = await api("PATCH", `/path-categories/${fixed}`, { name: "Networking" });
    assert.equal(renamed.body.name, "Networking");

    assert.equal((await api("DELETE", `/paths/${path.body.uid}`)).status, 204);
    assert.equal((await api("GET", `/paths/${path.body.uid}`)).status, 404);
    const [row] = await svc.db.sql`select deleted_at from paths where uid = ${path.body.uid}`;
    assert.ok(row.deletedAt instanceof Date, "soft delete keeps the row");
    assert.equal((await api("DELETE", `/path-categories/${fixed}`)).status, 204);
    const live = (await api("GET", "/path-categories")).body.items.map((c: Json) => c.uid);
    assert.ok(live.includes(cat.body.uid));
    assert.ok(!live.includes(fixed.toLowerCase()), "the deleted category is not listed");
  });

  test("PUT /agents/:id/password lets an agent sign in to the portal", async ({ svc, api }) => {
    const email = `${uniqueId("pw")}@example.com`;
    const [agent] = await svc.db.sql`
      insert into users (role, email) values ('agent', ${email}) returning id`;
    const bossEmail = `${uniqueId("boss")}@example.com`;
    const [boss] = await svc.db.sql`
      insert into users (role, email) values ('admin', ${bossEmail}) returning id`;
    const short = await api("PUT", `/agents/${agent.id}/password`, { password: "short" });
    assert.equal(short.status, 400);
    assert.deepEqual(short.body, {
      code: "validation_failed",
      message: "Invalid request",
      errors: [{ path: "password", code: "too_small", message: "at least 12 characters" }],
      requestId: short.res.headers.get("X-Request-Id"),
    });
    const missing = await api("PUT", "/agents/999999/password", {
      password: "long enough password",
    });
    assert.equal(missing.status, 404);
    assert.deepEqual(missing.body, {
      code: "agent_not_found",
      message: "Agent 999999 not found",
      requestId: missing.res.headers.get("X-Request-Id"),
    });
    const notAgent = await api("PUT", `/agents/${boss.id}/password`, {
      password: "long enough password",
    });
    assert.equal(notAgent.status, 404, "administrators are not agents");
    const ok = await api("PUT", `/agents/${agent.id}/password`, {
      password: "long enough password",
    });
    assert.equal(ok.status, 204);
    const login = await postSignIn(svc, "/portal/login", {
      email: email.toUpperCase(),
      password: "long enough password",
      next: "/portal/sessions",
    });
    assert.equal(login.status, 303);
    assert.equal(login.headers.get("Location"), "/portal/sessions");
    assert.match(login.headers.get("Set-Cookie")!, /^portal_login=/);
  });

  test("a token without scope admin is refused with 403", async ({ svc }) => {
    const readOnly = await svc.adminToken("sessions:read sessions:write");
    const res = await svc.api("GET", "/api/v1/admin/apps", readOnly);
    assert.equal(res.status, 403);
    await res.body?.cancel();
  });
}
