/**
 * `?organization=<slug>` on the REST lists: an admin client narrows sessions, customers, agents,
 * launches and deliveries to one organization; an unknown slug is 400; an app's client is refused.
 * One service per backend (with a mock CRM for callbacks) is shared by the tests of this file.
 */
import assert from "node:assert/strict";
import { type Backend, backends } from "../../helpers/db.ts";
import { startTestService, type TestService } from "../../helpers/service.ts";
import { sharedFixture, uniqueId } from "../../helpers/shared.ts";
import { createTestApp, launchOk, type TestApp } from "../../helpers/launch.ts";
import { type Json, launchPayload } from "../../helpers/payload.ts";
import { type CrmServer, startCrmServer } from "../../helpers/crm_server.ts";

/** Two organizations, an app of each with one launch, and the tokens that read them. */
interface Fixture {
  svc: TestService;
  crm: CrmServer;
  admin: string;
  /** A token of app A's own client (scopes sessions:read sessions:write, no admin). */
  appToken: string;
  a: Tenant;
  b: Tenant;
}

/** One organization with its app and what its launch made. */
interface Tenant {
  slug: string;
  app: TestApp;
  launched: { sessionId: number; agentId: number; customerId: number; launchId: number };
}

async function tenant(svc: TestService, admin: string, crm: CrmServer): Promise<Tenant> {
  const slug = uniqueId("org-").toLowerCase();
  const made = await svc.api("POST", "/api/v1/admin/organizations", admin, { slug, name: slug });
  assert.equal(made.status, 201);
  const app = await createTestApp(svc, admin, uniqueId("app-").toLowerCase(), {
    organization: slug,
    callbackUrl: `${crm.url}/hooks/{referenceId}`,
  });
  crm.secrets.push((app as Json).callbackSecret);
  // The same agent e-mail in both organizations: two agents, one per organization.
  const launched = await launchOk(
    svc,
    app,
    launchPayload({ contactId: uniqueId("C"), referenceId: uniqueId("500") }, {
      id: uniqueId("ag"),
      email: "same.person@example.com",
    }),
  );
  return { slug, app, launched };
}

async function start(backend: Backend): Promise<Fixture> {
  const svc = await startTestService(backend, { CALLBACK_ALLOW_PRIVATE_NETWORKS: "true" });
  const crm = startCrmServer();
  const admin = await svc.adminToken();
  const a = await tenant(svc, admin, crm);
  const b = await tenant(svc, admin, crm);
  const res = await svc.request("/api/v1/oauth2/token", {
    method: "POST",
    body: new URLSearchParams({
      grant_type: "client_credentials",
      client_id: a.app.clientId,
      client_secret: a.app.clientSecret,
    }),
  });
  const appToken = (await res.json()).access_token;
  return { svc, crm, admin, appToken, a, b };
}

for (const backend of backends) {
  const fixture = sharedFixture(() => start(backend), async (f) => {
    await f.svc.close();
    await f.crm.close();
  });
  const test = (name: string, fn: (f: Fixture) => Promise<void>) =>
    Deno.test({
      name: `REST organization= ${name} [${backend.name}]`,
      sanitizeOps: false,
      sanitizeResources: false,
      fn: async () => await fn(await fixture()),
    });

  /** The ids of a list's items, as `token` reads it. */
  const ids = async (f: Fixture, path: string, token = f.admin): Promise<number[]> => {
    const res = await f.svc.api("GET", path, token);
    const body = await res.json();
    assert.equal(res.status, 200, JSON.stringify(body));
    return body.items.map((i: { id: number }) => i.id);
  };

  test("narrows sessions to the organization's apps", async (f) => {
    const ofA = await ids(f, `/api/v1/sessions?limit=200&organization=${f.a.slug}`);
    assert.deepEqual(ofA, [f.a.launched.sessionId]);
    const ofB = await ids(f, `/api/v1/sessions?limit=200&organization=${f.b.slug}`);
    assert.deepEqual(ofB, [f.b.launched.sessionId]);
    const all = await ids(f, "/api/v1/sessions?limit=200");
    assert.ok(all.includes(f.a.launched.sessionId) && all.includes(f.b.launched.sessionId));
  });

  test("narrows customers to the organization's apps", async (f) => {
    const ofA = await ids(f, `/api/v1/customers?limit=200&organization=${f.a.slug}`);
    assert.deepEqual(ofA, [f.a.launched.customerId]);
  });

  test("narrows agents to the organization's own agents", async (f) => {
    assert.notEqual(f.a.launched.agentId, f.b.launched.agentId, "one agent per organization");
    const ofA = await ids(f, `/api/v1/agents?limit=200&organization=${f.a.slug}`);
    assert.deepEqual(ofA, [f.a.launched.agentId]);
    const byEmail = await f.svc.api(
      "GET",
      `/api/v1/agents?email=same.person@example.com&organization=${f.b.slug}`,
      f.admin,
    );
    const body = await byEmail.json();
    assert.deepEqual(body.items.map((i: Json) => [i.id, i.organization]), [
      [f.b.launched.agentId, f.b.slug],
    ]);
  });

  test("narrows the launch log to the organization's apps", async (f) => {
    const ofA = await ids(f, `/api/v1/launches?limit=200&organization=${f.a.slug}`);
    assert.deepEqual(ofA, [f.a.launched.launchId]);
  });

  test("narrows deliveries to the organization's apps", async (f) => {
    const res = await f.svc.api(
      "GET",
      `/api/v1/deliveries?limit=200&organization=${f.a.slug}`,
      f.admin,
    );
    const body = await res.json();
    assert.equal(res.status, 200);
    assert.ok(body.items.length > 0, "the launch wrote callback events");
    assert.deepEqual([...new Set(body.items.map((d: Json) => d.appName))], [f.a.app.appName]);
  });

  test("combines with ?app=: another organization's app gives an empty list", async (f) => {
    const none = await ids(
      f,
      `/api/v1/sessions?organization=${f.a.slug}&app=${f.b.app.appName}`,
    );
    assert.deepEqual(none, []);
  });

  test("an unknown or malformed slug is 400 naming organization", async (f) => {
    for (const path of ["sessions", "customers", "agents", "launches", "deliveries"]) {
      for (const value of [uniqueId("nope-").toLowerCase(), "Bad Slug"]) {
        const res = await f.svc.api("GET", `/api/v1/${path}?organization=${value}`, f.admin);
        const body = await res.json();
        assert.equal(res.status, 400, `${path} ${value}`);
        assert.deepEqual(body.errors.map((e: Json) => e.path), ["organization"], path);
      }
    }
  });

  test("an app's client that passes organization is refused with 400", async (f) => {
    for (const path of ["sessions", "customers", "agents", "deliveries"]) {
      for (const slug of [f.a.slug, f.b.slug]) {
        const res = await f.svc.api("GET", `/api/v1/${path}?organization=${slug}`, f.appToken);
        const body = await res.json();
        assert.equal(res.status, 400, `${path} ${slug}`);
        assert.equal(body.errors[0].path, "organization");
        assert.match(body.errors[0].message, /only admin clients/);
      }
    }
    // Without the parameter it still sees its own app only.
    assert.deepEqual(await ids(f, "/api/v1/sessions?limit=200", f.appToken), [
      f.a.launched.sessionId,
    ]);
  });

  test("an app's client sees only its own organization's agents", async (f) => {
    const seen = await ids(f, "/api/v1/agents?limit=200", f.appToken);
    assert.deepEqual(seen, [f.a.launched.agentId]);
  });
}
