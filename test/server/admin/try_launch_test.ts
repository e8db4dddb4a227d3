/**
 * The admin's Try launch page through app.request(): the form and its JSON, the dry run's plan and
 * warnings, a Launch's signed form (it verifies with the app's key, lands, and its record link
 * finds the launch log record), per-field errors, and access (administrators only, CSRF).
 */
import assert from "node:assert/strict";
import { signatureMatches } from "../../../server/launch/signature_match.ts";
import { backends } from "../../helpers/db.ts";
import { createTestApp, launchOk, signLaunch, type TestApp } from "../../helpers/launch.ts";
import { launchPayload } from "../../helpers/payload.ts";
import { startTestService, type TestService } from "../../helpers/service.ts";
import { sharedFixture, uniqueId } from "../../helpers/shared.ts";
import { type Admin, getAs, postAs, signInAdmin } from "../../helpers/admin_screens.ts";

const ADMIN = { email: "root@example.com", password: "admin-password-123" };

/** The service, its administrator and an app of its own. */
interface Fixture {
  svc: TestService;
  admin: Admin;
  app: TestApp;
}

/** Reverses hono/jsx's HTML escaping. */
function unescape(html: string): string {
  return html.replaceAll("&lt;", "<").replaceAll("&gt;", ">").replaceAll("&quot;", '"')
    .replaceAll("&#39;", "'").replaceAll("&amp;", "&");
}

/** The message shown under the field `name`, or null. */
function fieldError(html: string, name: string): string | null {
  const m = html.match(new RegExp(`<p class="field-error" id="f-${name}-error">([^<]*)</p>`));
  return m ? unescape(m[1]) : null;
}

/** The form's defaults, as the page first shows them, with `over` changed. */
function fields(over: Record<string, string> = {}): Record<string, string> {
  return {
    agentId: "agent42",
    agentEmail: "ada@example.com",
    agentFirstName: "Ada",
    agentLastName: "Lovelace",
    agentLocale: "en",
    contactId: "C0099",
    contactFirstName: "Grace",
    contactLastName: "Hopper",
    contactEmail: "grace@example.org",
    contactPhone: "5559876543",
    referenceNumber: "CASE00017",
    target: "embedded",
    assign: "on",
    pathsSearchType: "full_text",
    openIn: "tab",
    ...over,
  };
}

for (const backend of backends) {
  const fixture = sharedFixture(async (): Promise<Fixture> => {
    const svc = await startTestService(backend, {
      ADMIN_EMAIL: ADMIN.email,
      ADMIN_PASSWORD: ADMIN.password,
    });
    const app = await createTestApp(svc, await svc.adminToken(), "trycrm");
    return { svc, admin: await signInAdmin(svc, ADMIN), app };
  }, (f) => f.svc.close());
  const test = (name: string, fn: (f: Fixture) => Promise<void>) =>
    Deno.test({
      name: `admin try launch ${name} [${backend.name}]`,
      sanitizeOps: false,
      sanitizeResources: false,
      fn: async () => await fn(await fixture()),
    });
  const tryPath = (f: Fixture) => `/admin/apps/${f.app.appName}/try-launch`;

  test("page shows the form, its JSON, and a policy letting it post and frame", async (f) => {
    const detail = await (await getAs(f.svc, f.admin, `/admin/apps/${f.app.appName}`)).text();
    assert.ok(detail.includes(`href="${tryPath(f)}"`), "the app's page links to it");
    const res = await getAs(f.svc, f.admin, tryPath(f));
    assert.equal(res.status, 200);
    const csp = res.headers.get("Content-Security-Policy")!;
    assert.match(csp, /default-src 'none'/);
    assert.match(csp, /form-action 'self' http:\/\/portal\.test/);
    assert.match(csp, /frame-src 'self' http:\/\/portal\.test/);
    assert.match(csp, /frame-ancestors 'none'/);
    const html = await res.text();
    assert.match(html, /<h1>Try launch: trycrm<\/h1>/);
    assert.match(html, /admin-try-launch\.js/);
    const json = unescape(html.match(/data-testid="try-json">([^<]*)<\/pre>/)![1]);
    const payload = JSON.parse(json);
    assert.equal(payload.context.user.id, "agent42");
    assert.equal(payload.context.environment.parameters.target, "standard");
    assert.equal(payload.issuedAt, undefined, "freshness is added when signed");
  });

  test("preview answers the payload of the form as JSON", async (f) => {
    const res = await postAs(f.svc, f.admin, tryPath(f), {
      ...fields({ pathsSearchType: "tag", pathsSearchValues: "printer, offline", cf_unused: "x" }),
      action: "preview",
    });
    assert.equal(res.status, 200);
    const body = await res.json();
    const p = body.payload.context.environment.parameters;
    assert.equal(p.target, "embedded");
    assert.deepEqual(p.paths, {
      search: [{ search_type: "tag", search_values: ["printer", "offline"] }],
      remote: false,
    });
    assert.equal(p.customFields, undefined, "only configured custom fields are read");
    assert.deepEqual(body.errors, {});
  });

  test("dry run shows the plan and the warnings, and writes nothing", async (f) => {
    const email = `${uniqueId("tl")}@example.org`;
    await launchOk(f.svc, f.app, launchPayload({ contactId: "TL1", contactEmail: email }));
    const [{ count: before }] = await f.svc.db.sql`select count(*)::int from launches`;
    const res = await postAs(f.svc, f.admin, tryPath(f), {
      ...fields({ contactId: "TL2", contactEmail: email }),
      action: "dry_run",
    });
    assert.equal(res.status, 200);
    const html = unescape(await res.text());
    assert.match(html, /data-testid="plan"><li>Agent: (create|update)<\/li><li>Customer: update/);
    assert.match(
      html,
      /data-testid="warnings"><li[^>]*><code>context\.environment\.parameters\.contactId/,
    );
    assert.match(html, /keeps its external id TL1; the launch sent TL2/);
    const [{ count: after }] = await f.svc.db.sql`select count(*)::int from launches`;
    assert.equal(after, before, "no launch log record");
  });

  test("dry run shows the refusal the launch would give", async (f) => {
    const res = await postAs(f.svc, f.admin, tryPath(f), {
      ...fields({ sessionId: "999999" }),
      action: "dry_run",
    });
    assert.equal(res.status, 200);
    assert.match(await res.text(), /data-testid="refusal">The launch would be refused \(404/);
  });

  test("launch renders a signed form that verifies, lands and finds its record", async (f) => {
    const res = await postAs(f.svc, f.admin, tryPath(f), {
      ...fields({ agentId: "tryagent", agentEmail: "try.agent@example.com", openIn: "iframe" }),
      action: "launch",
    });
    assert.equal(res.status, 200);
    const html = unescape(await res.text());
    const form = html.match(
      /<form method="post" action="([^"]+)" target="([^"]+)" id="try-launch-go"/,
    );
    assert.ok(form, "the signed form");
    assert.equal(form[1], `http://portal.test/portal/api/auth/app/${f.app.appName}`);
    assert.equal(form[2], "try-launch-frame");
    assert.match(html, /<iframe name="try-launch-frame"/);
    const signed = html.match(/name="signed_request" value="([^"]+)"/)![1];
    assert.ok(signatureMatches(signed, f.app.apiKey), "signed with the app's current key");
    assert.ok(!html.includes(f.app.apiKey), "the key is not on the page");
    const record = html.match(/href="([^"]+)" data-testid="record-link"/)![1];
    const early = await getAs(f.svc, f.admin, record);
    assert.equal(early.status, 404, "not recorded before the portal receives it");
    await early.body?.cancel();

    const landed = await f.svc.request(form[1].replace("http://portal.test", ""), {
      method: "POST",
      headers: { Origin: "http://portal.test", Accept: "text/html" },
      body: new URLSearchParams({ signed_request: signed }),
    });
    assert.equal(landed.status, 303);
    const location = landed.headers.get("Location")!;
    assert.match(location, /\/portal\/sessions\/\d+\?launch=(\d+)/);
    await landed.body?.cancel();
    const launchId = location.match(/launch=(\d+)/)![1];
    const found = await getAs(f.svc, f.admin, record);
    assert.equal(found.status, 303);
    assert.equal(found.headers.get("Location"), `/admin/launches/${launchId}`);
  });

  test("launch in a tab targets the named tab the page's script opens", async (f) => {
    const res = await postAs(f.svc, f.admin, tryPath(f), { ...fields(), action: "launch" });
    const html = await res.text();
    assert.match(html, /target="try-launch-tab" id="try-launch-go" data-auto="on"/);
    assert.ok(!html.includes("<iframe"), "no frame for a tab launch");
  });

  test("bad field values give one clear error per field", async (f) => {
    const res = await postAs(f.svc, f.admin, tryPath(f), {
      ...fields({
        agentId: "not an id",
        agentEmail: "nope",
        contactPhone: "call me",
        target: "sideways",
      }),
      action: "launch",
    });
    assert.equal(res.status, 400);
    const html = await res.text();
    assert.match(fieldError(html, "agentId")!, /expected 1-128 letters/);
    assert.match(fieldError(html, "target")!, /expected standard, embedded, seesupport/);
    assert.ok(!html.includes('id="try-launch-go"'), "nothing signed");
    const second = await postAs(f.svc, f.admin, tryPath(f), {
      ...fields({ agentEmail: "nope", contactPhone: "call me", contactFirstName: "" }),
      action: "dry_run",
    });
    assert.equal(second.status, 400);
    const text = await second.text();
    assert.match(fieldError(text, "agentEmail")!, /expected an e-mail address/);
    assert.match(fieldError(text, "contactPhone")!, /expected digits/);
    assert.equal(fieldError(text, "contactFirstName"), "required");
    assert.equal(fieldError(text, "contactLastName"), null, "a good field has no error");
  });

  test("a disabled app is named as such, and an unknown app is a 404", async (f) => {
    const token = await f.svc.adminToken();
    const off = await createTestApp(f.svc, token, uniqueId("off"));
    const patched = await f.svc.api("PATCH", `/api/v1/admin/apps/${off.appName}`, token, {
      enabled: false,
    });
    assert.equal(patched.status, 200);
    await patched.body?.cancel();
    const res = await postAs(f.svc, f.admin, `/admin/apps/${off.appName}/try-launch`, {
      ...fields(),
      action: "launch",
    });
    assert.equal(res.status, 409);
    assert.match(await res.text(), /is disabled: enable it to launch/);
    const missing = await getAs(f.svc, f.admin, "/admin/apps/no-such-app/try-launch");
    assert.equal(missing.status, 404);
    await missing.body?.cancel();
  });

  test("is refused signed out, to an agent's login and without the CSRF token", async (f) => {
    const out = await f.svc.request(tryPath(f));
    assert.equal(out.status, 303);
    assert.match(out.headers.get("Location")!, /^\/admin\/login\?next=/);
    await out.body?.cancel();
    // An agent signed in by a launch holds a portal login: it is no administrator's.
    const launched = await f.svc.request(`/portal/api/auth/app/${f.app.appName}`, {
      method: "POST",
      body: new URLSearchParams({
        signed_request: await signLaunch(launchPayload(), f.app.apiKey),
      }),
    });
    const agentCookie = launched.headers.get("Set-Cookie")!.split(";")[0];
    await launched.body?.cancel();
    const asAgent = await f.svc.request(tryPath(f), {
      headers: { Cookie: agentCookie.replace(/^portal_login=/, "admin_login=") },
    });
    assert.equal(asAgent.status, 303, "a portal token in the admin cookie is no login");
    await asAgent.body?.cancel();
    const noCsrf = await postAs(
      f.svc,
      f.admin,
      tryPath(f),
      { ...fields(), action: "launch" },
      null,
    );
    assert.equal(noCsrf.status, 403);
    assert.ok(!(await noCsrf.text()).includes("signed_request"), "nothing signed");
  });
}
