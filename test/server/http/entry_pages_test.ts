/**
 * Issue 35, entry and error pages: `/` is the entry page; `{portal_url}/` goes to the agent's
 * sessions or to sign-in; a browser gets 404 and launch refusals as pages with the request id,
 * a JSON client the JSON error; the launch endpoint's `Cannot GET <path>` stays plain text.
 */
import assert from "node:assert/strict";
import { pglite } from "../../helpers/db.ts";
import { createTestApp, signLaunch, type TestApp } from "../../helpers/launch.ts";
import { launchPayload } from "../../helpers/payload.ts";
import { startTestService, type TestService } from "../../helpers/service.ts";
import { sharedFixture } from "../../helpers/shared.ts";

const opts = { sanitizeOps: false, sanitizeResources: false };
const HTML = { Accept: "text/html,application/xhtml+xml" };

const fixture = sharedFixture(async () => {
  const svc = await startTestService(pglite);
  const app = await createTestApp(svc, await svc.adminToken(), "entry");
  return { svc, app };
}, ({ svc }: { svc: TestService; app: TestApp }) => svc.close());

Deno.test(
  "entry page: what the service is, links to sign-in, admin, API reference, health",
  opts,
  async () => {
    const { svc } = await fixture();
    const res = await svc.request("/", { headers: HTML });
    assert.equal(res.status, 200);
    assert.match(res.headers.get("Content-Type")!, /^text\/html/);
    const page = await res.text();
    for (const href of ["/portal/login", "/admin", "/api/v1/docs", "/healthz"]) {
      assert.ok(page.includes(`href="${href}"`), href);
    }
    assert.match(page, /<link rel="stylesheet" href="\/assets\/base\.css\?v=/);
  },
);

Deno.test(
  "404: a page with the request id for browsers, route_not_found for JSON",
  opts,
  async () => {
    const { svc } = await fixture();
    const headers = { ...HTML, "X-Request-Id": "req-404" };
    const page = await svc.request("/no/such/<page>", { headers });
    assert.equal(page.status, 404);
    assert.match(page.headers.get("Content-Type")!, /^text\/html/);
    const html = await page.text();
    assert.match(html, /<h1>Page not found<\/h1>/);
    assert.match(html, /<code>req-404<\/code>/);
    assert.doesNotMatch(html, /<page>/, "the path is escaped");
    const json = await svc.request("/no/such/page", { headers: { Accept: "application/json" } });
    assert.equal(json.status, 404);
    assert.equal((await json.json()).code, "route_not_found");
    const plain = await svc.request("/no/such/page");
    assert.equal((await plain.json()).code, "route_not_found", "no Accept: JSON");
  },
);

Deno.test(
  "launch endpoint: GET stays the spec's plain text; a refusal page quotes the request id",
  opts,
  async () => {
    const { svc } = await fixture();
    const get = await svc.request("/portal/api/auth/app/entry", { headers: HTML });
    assert.equal(get.status, 405);
    assert.equal(await get.text(), "Cannot GET /portal/api/auth/app/entry");
    const refused = await svc.request("/portal/api/auth/app/entry", {
      method: "POST",
      headers: { ...HTML, "X-Request-Id": "req-refused" },
      body: new URLSearchParams({ signed_request: "bad.signature" }),
    });
    assert.ok(refused.status >= 400 && refused.status < 500);
    const html = await refused.text();
    assert.match(html, /<h1>The portal could not be opened<\/h1>/);
    assert.match(html, /<code>req-refused<\/code>/);
    assert.match(html, /base\.css/);
  },
);

Deno.test("{portal_url}/: the agent's sessions when signed in, else sign-in", opts, async () => {
  const { svc, app } = await fixture();
  for (const path of ["/portal", "/portal/"]) {
    const out = await svc.request(path, { headers: HTML, redirect: "manual" });
    await out.body?.cancel();
    assert.equal(out.status, 303, path);
    assert.match(out.headers.get("Location")!, /^\/portal\/login/, path);
  }
  const launch = await svc.request(`/portal/api/auth/app/${app.appName}`, {
    method: "POST",
    headers: HTML,
    body: new URLSearchParams({ signed_request: await signLaunch(launchPayload(), app.apiKey) }),
    redirect: "manual",
  });
  await launch.body?.cancel();
  const cookie = launch.headers.getSetCookie().map((c) => c.split(";")[0]).join("; ");
  assert.ok(cookie, "the launch signs the agent in");
  for (const path of ["/portal", "/portal/"]) {
    const res = await svc.request(path, {
      headers: { ...HTML, Cookie: cookie },
      redirect: "manual",
    });
    await res.body?.cancel();
    assert.equal(res.status, 302, path);
    assert.equal(res.headers.get("Location"), "/portal/sessions", path);
  }
});
