/**
 * Every route family answers with the headers a security review expects: nosniff and
 * Referrer-Policy everywhere, HSTS on https, a complete CSP on every HTML page (no inline code
 * without the request's nonce, frame-ancestors per family), and no-store where a response holds
 * tokens or personal data.
 */
import assert from "node:assert/strict";
import { pglite } from "../../helpers/db.ts";
import { startTestService, type TestService } from "../../helpers/service.ts";
import { sharedFixture } from "../../helpers/shared.ts";
import { createTestApp, signLaunch } from "../../helpers/launch.ts";
import { launchPayload } from "../../helpers/payload.ts";
import { postSignIn } from "../../helpers/sign_in.ts";

const service = sharedFixture(
  () =>
    startTestService(pglite, {
      PUBLIC_URL: "https://portal.test",
      ADMIN_EMAIL: "root@example.com",
      ADMIN_PASSWORD: "root-password-0123456789",
    }),
  (svc: TestService) => svc.close(),
);
const opts = { sanitizeOps: false, sanitizeResources: false };

/** Headers every response carries. */
function checkCommon(res: Response, what: string): void {
  assert.equal(res.headers.get("X-Content-Type-Options"), "nosniff", what);
  assert.equal(res.headers.get("Referrer-Policy"), "same-origin", what);
  assert.match(res.headers.get("Strict-Transport-Security") ?? "", /max-age=\d+/, what);
}

/** The CSP of an HTML page, checked; returns its frame-ancestors directive. */
async function checkPage(res: Response, what: string): Promise<string> {
  checkCommon(res, what);
  assert.match(res.headers.get("Content-Type")!, /^text\/html/, what);
  assert.equal(res.headers.get("Cache-Control"), "no-store", what);
  const csp = res.headers.get("Content-Security-Policy") ?? "";
  const directives = new Map(
    csp.split("; ").map((d) => {
      const [name, ...values] = d.split(" ");
      return [name, values.join(" ")];
    }),
  );
  assert.equal(directives.get("default-src"), "'none'", `${what}: ${csp}`);
  assert.equal(directives.get("form-action"), "'self'", what);
  assert.equal(directives.get("base-uri"), "'none'", what);
  assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval/, what);
  const html = await res.text();
  const nonce = csp.match(/'nonce-([^']+)'/)?.[1];
  for (const tag of html.matchAll(/<(script|style)\b([^>]*)>/g)) {
    const inline = !/\bsrc=/.test(tag[2]);
    if (inline) assert.match(tag[2], new RegExp(`nonce="${nonce}"`), `${what}: inline <${tag[1]}>`);
  }
  assert.doesNotMatch(html, /\son[a-z]+="/, `${what}: no inline event handlers`);
  return directives.get("frame-ancestors") ?? "";
}

Deno.test("headers: every route family", opts, async () => {
  const svc = await service();
  const token = await svc.adminToken();
  const app = await createTestApp(svc, token, "walk", {
    frameAncestors: ["https://crm.example.com"],
  });

  // JSON: health, errors, API (personal data: no-store), the token endpoint (RFC 6749 §5.1).
  for (const path of ["/healthz", "/nope"]) {
    const res = await svc.request(path);
    await res.body?.cancel();
    checkCommon(res, path);
  }
  const tokenRes = await svc.request("/api/v1/oauth2/token", {
    method: "POST",
    body: new URLSearchParams({
      grant_type: "client_credentials",
      client_id: "test-admin",
      client_secret: "test-admin-secret-0123456789abcdefghijkl",
    }),
  });
  await tokenRes.body?.cancel();
  checkCommon(tokenRes, "token");
  assert.equal(tokenRes.headers.get("Cache-Control"), "no-store");
  const launched = await svc.request(`/portal/api/auth/app/${app.appName}`, {
    method: "POST",
    headers: { Accept: "text/html" },
    body: new URLSearchParams({ signed_request: await signLaunch(launchPayload(), app.apiKey) }),
  });
  assert.equal(launched.status, 303);
  const location = new URL(launched.headers.get("Location")!);
  const cookie = launched.headers.get("Set-Cookie")!.split(";")[0];
  const sessionId = location.pathname.split("/").pop();
  for (const path of [`/api/v1/sessions/${sessionId}`, "/api/v1/sessions", "/api/v1/launches"]) {
    const res = await svc.api("GET", path, token);
    await res.body?.cancel();
    checkCommon(res, path);
    assert.equal(res.status, 200, path);
    assert.equal(res.headers.get("Cache-Control"), "no-store", `${path}: personal data`);
  }

  // HTML: the portal (framed by the app), its sign-in, the launch error page, the API reference
  // and the admin screens (framed by nobody).
  const screen = await svc.request(location.pathname + location.search, {
    headers: { Cookie: cookie },
  });
  assert.equal(
    await checkPage(screen, "session screen"),
    "'self' https://crm.example.com",
  );
  assert.equal(await checkPage(await svc.request("/portal/login"), "portal sign-in"), "'self'");
  assert.equal(
    await checkPage(await svc.request("/portal/password-reset"), "portal lost password"),
    "'self'",
  );
  const refused = await svc.request(`/portal/api/auth/app/${app.appName}`, {
    method: "POST",
    headers: { Accept: "text/html" },
    body: new URLSearchParams({ signed_request: "x.y" }),
  });
  assert.equal(refused.status, 401);
  assert.equal(await checkPage(refused, "launch error page"), "'self' https://crm.example.com");
  assert.equal(await checkPage(await svc.request("/api/v1/docs"), "API reference"), "'none'");
  assert.equal(await checkPage(await svc.request("/admin/login"), "admin sign-in"), "'none'");
  const signIn = await postSignIn(svc, "/admin/login", {
    email: "root@example.com",
    password: "root-password-0123456789",
  });
  assert.equal(signIn.status, 303, "admin signed in");
  const adminCookie = signIn.headers.get("Set-Cookie")!.split(";")[0];
  for (const path of ["/admin/apps", `/admin/apps/${app.appName}`, "/admin/launches"]) {
    const res = await svc.request(path, { headers: { Cookie: adminCookie } });
    assert.equal(res.status, 200, path);
    assert.equal(await checkPage(res, path), "'none'");
  }

  // Static files: served with nosniff and their own type.
  for (const path of ["/assets/api-docs.js", "/assets/api-docs.css"]) {
    const res = await svc.request(path);
    await res.body?.cancel();
    checkCommon(res, path);
    assert.match(res.headers.get("Content-Type")!, /^text\/(javascript|css)/, path);
  }
  // The icon: at the root for tools and error pages, and linked from the pages themselves.
  const icon = await svc.request("/favicon.ico");
  checkCommon(icon, "/favicon.ico");
  assert.equal(icon.status, 200);
  assert.equal(icon.headers.get("Content-Type"), "image/svg+xml");
  assert.match(await icon.text(), /^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/);
  for (const [path, prefix] of [["/admin/login", ""], ["/portal/login", "/portal"]]) {
    const page = await (await svc.request(path)).text();
    const href = /<link rel="icon" href="([^"]+)" type="image\/svg\+xml"/.exec(page)?.[1];
    assert.ok(href?.startsWith(`${prefix}/assets/favicon.svg?v=`), `${path} links its icon`);
    const linked = await svc.request(href!);
    assert.equal(linked.status, 200, `${href}`);
    assert.equal(linked.headers.get("Content-Type"), "image/svg+xml");
    await linked.body?.cancel();
  }
});
