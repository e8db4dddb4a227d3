/**
 * Access fails closed: every route the service registers, requested without a cookie or token,
 * is on the public list, answers 401, or sends a browser to its sign-in page; the portal's
 * session actions answer a browser and a JSON client alike; `next` never leaves the site.
 */
import assert from "node:assert/strict";
import { Hono } from "hono";
import { type Backend, backends, pglite } from "../../helpers/db.ts";
import { startTestService, type TestService } from "../../helpers/service.ts";
import { sharedFixture } from "../../helpers/shared.ts";
import { createTestApp, launchOk, signLaunch, type TestApp } from "../../helpers/launch.ts";
import { launchPayload } from "../../helpers/payload.ts";
import { postSignIn } from "../../helpers/sign_in.ts";
import { bareRoute, type SignInFamily, walkRoutes } from "../../helpers/access_walk.ts";
import { publicMatcher, publicRoutes } from "../../../server/http/public_routes.ts";
import { refuseSignedOut } from "../../../server/http/access.ts";

const ADMIN = { email: "root@example.com", password: "root-password-0123456789" };
const PATH_UID = "00000000-0000-4000-8000-000000000000";
const FAMILIES: SignInFamily[] = [
  { prefix: "/portal", login: "/portal/login" },
  { prefix: "/admin", login: "/admin/login" },
];
const opts = { sanitizeOps: false, sanitizeResources: false };

/** A service on `backend` with an app framed by https://host.test, shared by this file's tests. */
function serviceOn(backend: Backend): () => Promise<{ svc: TestService; app: TestApp }> {
  return sharedFixture(async () => {
    const svc = await startTestService(backend, {
      ADMIN_EMAIL: ADMIN.email,
      ADMIN_PASSWORD: ADMIN.password,
    });
    const app = await createTestApp(svc, await svc.adminToken(), "walk", {
      frameAncestors: ["https://host.test"],
    });
    return { svc, app };
  }, ({ svc }) => svc.close());
}

/** One service per backend, started on first use; most tests use PGlite's. */
const services = new Map(backends.map((backend) => [backend, serviceOn(backend)]));
const fixture = services.get(pglite) ?? serviceOn(pglite);

Deno.test("access walk: every route without a cookie is public, 401 or sign-in", opts, async () => {
  const { svc } = await fixture();
  const report = await walkRoutes(
    { routes: svc.app.routes, request: (path, init) => svc.app.request(path, init) },
    publicMatcher(publicRoutes("/portal")),
    FAMILIES,
  );
  assert.deepEqual(report.failures, [], report.failures.join("\n"));
  assert.ok(report.checked > 150, `walked ${report.checked} requests`);
  assert.ok(report.publicRoutes.includes("POST /portal/api/auth/app/:app_name"), "the launch");
  assert.ok(report.publicRoutes.includes("GET /admin/login"), "the admin sign-in");
  // Every admin screen is walked and none is public, the sessions list among them.
  assert.ok(svc.app.routes.some((r) => r.method === "GET" && r.path === "/admin/sessions"));
  assert.ok(!report.publicRoutes.some((r) => r.startsWith("GET /admin/sessions")));
});

Deno.test("access walk: a route registered without a guard is reported", async () => {
  const app = new Hono();
  app.use("/portal/*", async (c, next) => {
    if (c.req.path === "/portal/login") return await next();
    return refuseSignedOut(c, {
      prefix: "/portal",
      login: "/portal/login",
      fallback: "/portal/sessions",
      message: "Sign in",
    }, c.req.path);
  });
  app.get("/portal/login", (c) => c.text("sign in"));
  app.get("/portal/sessions/:id{[1-9][0-9]*}", (c) => c.text("guarded"));
  app.get("/reports/:id", (c) => c.text(`report ${c.req.param("id")}`));
  app.post("/admin/things", (c) => c.redirect("/elsewhere", 303));
  const report = await walkRoutes(
    app,
    publicMatcher([{ method: "GET", path: "/portal/login", reason: "sign-in" }]),
    FAMILIES,
  );
  assert.deepEqual(report.failures, [
    "GET /reports/:id (/reports/sample, html): answered 200",
    "GET /reports/:id (/reports/sample, json): answered 200",
    "POST /admin/things (/admin/things, html): redirect to /elsewhere, not /admin/login",
    "POST /admin/things (/admin/things, json): answered 303 (Location: /elsewhere)",
  ]);
  assert.deepEqual(report.publicRoutes, ["GET /portal/login"]);
});

Deno.test("access walk: every public route names a registered route", opts, async () => {
  const { svc } = await fixture();
  const registered = svc.app.routes.map((r) => `${r.method} ${bareRoute(r.path)}`);
  for (const entry of publicRoutes("/portal")) {
    const bare = bareRoute(entry.path);
    const found = entry.method === "ALL"
      ? registered.some((r) => r.endsWith(` ${bare}`) && !r.startsWith("ALL "))
      : registered.includes(`${entry.method} ${bare}`);
    assert.ok(found, `${entry.method} ${entry.path} is on the list but not registered`);
    assert.ok(entry.reason.length > 0, `${entry.path} says why it is public`);
  }
});

/** A launched session: its id, launch id and the screen's URL (no cookie kept). */
async function launched(svc: TestService, app: TestApp) {
  const { sessionId, launchId } = await launchOk(svc, app, launchPayload());
  return { sessionId, launchId, screen: `/portal/sessions/${sessionId}` };
}

Deno.test("portal access: session actions send a browser to sign-in", opts, async () => {
  const { svc, app } = await fixture();
  const { screen } = await launched(svc, app);
  const cases = [
    ["POST", `${screen}/status`],
    ["POST", `${screen}/remote`],
    ["POST", `${screen}/paths/${PATH_UID}/done`],
  ] as const;
  for (const [method, path] of cases) {
    const res = await svc.request(path, {
      method,
      headers: { Accept: "text/html" },
      body: new URLSearchParams({ csrf: "x", status: "closed" }),
    });
    await res.body?.cancel();
    assert.equal(res.status, 303, path);
    assert.equal(res.headers.get("Location"), `/portal/login?next=${encodeURIComponent(screen)}`);
  }
  const page = await svc.request(`${screen}/remote`, { headers: { Accept: "text/html" } });
  await page.body?.cancel();
  assert.equal(page.status, 303);
  assert.equal(
    page.headers.get("Location"),
    `/portal/login?next=${encodeURIComponent(`${screen}/remote`)}`,
  );
});

Deno.test("portal access: session actions answer a JSON client 401 JSON", opts, async () => {
  const { svc, app } = await fixture();
  const { screen } = await launched(svc, app);
  for (const path of [`${screen}/status`, `${screen}/remote`, `${screen}/paths/${PATH_UID}/done`]) {
    const kinds: Record<string, string>[] = [
      { Accept: "application/json" },
      { "Sec-Fetch-Dest": "empty" },
    ];
    for (const headers of kinds) {
      const res = await svc.request(path, { method: "POST", headers, body: "{}" });
      assert.equal(res.status, 401, `${path} ${JSON.stringify(headers)}`);
      const body = await res.json();
      assert.equal(body.code, "login_required");
      assert.equal(typeof body.message, "string");
    }
  }
});

const COOKIES_BLOCKED =
  "portal access: a cookie-less session page in a frame is cookies_blocked, naming no origin";

// The unauthenticated probe (issue 32 item 7), on every backend (PostgreSQL: TEST_DATABASE_URL).
for (const [backend, service] of services) {
  Deno.test(
    `${COOKIES_BLOCKED} [${backend.name}]`,
    opts,
    async () => {
      const { svc, app } = await service();
      const { screen, launchId } = await launched(svc, app);
      const framed = { Accept: "text/html", "Sec-Fetch-Dest": "iframe" };
      const res = await svc.request(`${screen}?launch=${launchId}`, { headers: framed });
      assert.equal(res.status, 401);
      assert.match(res.headers.get("Content-Security-Policy")!, /; frame-ancestors \*$/);
      const page = await res.text();
      assert.match(page, /cookies_blocked/);
      assert.doesNotMatch(page, /host\.test/, "the app's origins are not listed");
      // The unauthenticated probe: a fresh (session, launch) pair and any other answer alike.
      const other = await svc.request(`${screen}?launch=${launchId + 1000}`, { headers: framed });
      assert.equal(other.status, 401);
      // The same page but for its nonce and the ids it quotes (the request's own, the query's).
      const strip = (html: string) =>
        html.replace(/nonce="[^"]+"/g, "").replace(
          /<dl class="kv" data-testid="quoted-ids">.*?<\/dl>/,
          "",
        );
      assert.equal(strip(await other.text()), strip(page), "the same page");
      const tops: Record<string, string>[] = [{ Accept: "text/html" }, {
        "Sec-Fetch-Dest": "document",
      }];
      for (const headers of tops) {
        const top = await svc.request(`${screen}?launch=${launchId}`, { headers });
        await top.body?.cancel();
        assert.equal(top.status, 303, "a top-level visit without a login always gets sign-in");
      }
      const withCookie = await svc.request(`${screen}?launch=${launchId}`, {
        headers: { ...framed, Cookie: "portal_login=stale" },
      });
      await withCookie.body?.cancel();
      assert.equal(withCookie.status, 303, "a stale cookie means signed out, not blocked cookies");
    },
  );
}

Deno.test("admin access: a JSON client gets 401 JSON, a browser the sign-in", opts, async () => {
  const { svc } = await fixture();
  const json = await svc.request("/admin/apps", { headers: { Accept: "application/json" } });
  assert.equal(json.status, 401);
  assert.equal((await json.json()).code, "login_required");
  const post = await svc.request("/admin/apps", {
    method: "POST",
    body: new URLSearchParams({ appName: "x" }),
  });
  await post.body?.cancel();
  assert.equal(post.status, 303);
  assert.equal(post.headers.get("Location"), "/admin/login?next=%2Fadmin%2Fapps");
});

Deno.test("sign-in next: an address on another site is not followed", opts, async () => {
  const { svc } = await fixture();
  for (const next of ["https://evil.example/", "//evil.example", "/\\evil.example", "/portal"]) {
    const res = await postSignIn(svc, "/admin/login", { ...ADMIN, next });
    await res.body?.cancel();
    assert.equal(res.status, 303, next);
    assert.equal(res.headers.get("Location"), "/admin/apps", next);
  }
  for (const next of ["//evil.example/portal/x", "https://evil.example/portal/x", "/admin"]) {
    const page = await (await svc.request(`/portal/login?next=${encodeURIComponent(next)}`))
      .text();
    assert.match(page, /name="next" value="\/portal\/sessions"/, next);
  }
});

Deno.test("sign-in next: a page of the site is followed", opts, async () => {
  const { svc } = await fixture();
  const res = await postSignIn(svc, "/admin/login", { ...ADMIN, next: "/admin/teams?x=1" });
  await res.body?.cancel();
  assert.equal(res.headers.get("Location"), "/admin/teams?x=1");
  const page = await (await svc.request("/portal/login?next=%2Fportal%2Fsessions%2F7")).text();
  assert.match(page, /name="next" value="\/portal\/sessions\/7"/);
});

// A launch through the guard still works (the launch is public): the HTML answer lands on the
// screen with the login cookie.
Deno.test("access walk: the launch passes the portal's guard", opts, async () => {
  const { svc, app } = await fixture();
  const res = await svc.request(`/portal/api/auth/app/${app.appName}`, {
    method: "POST",
    headers: { Accept: "text/html" },
    body: new URLSearchParams({ signed_request: await signLaunch(launchPayload(), app.apiKey) }),
  });
  await res.body?.cancel();
  assert.equal(res.status, 303);
  assert.match(res.headers.get("Set-Cookie") ?? "", /^portal_login=/);
});
