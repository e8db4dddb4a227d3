/**
 * One language per login (docs/portal.md, "Language"): the locale a launch set, or the agent's
 * profile, governs every page of the login; the header's language menu changes it for that login.
 */
import assert from "node:assert/strict";
import { backends } from "../../helpers/db.ts";
import { startTestService, type TestService } from "../../helpers/service.ts";
import { createTestApp, signLaunch, type TestApp } from "../../helpers/launch.ts";
import { type Json, launchPayload } from "../../helpers/payload.ts";
import { postSignIn } from "../../helpers/sign_in.ts";

/** A launch as a browser makes it: the landing URL, the login cookie and the page's CSRF. */
interface Landed {
  url: string;
  cookie: string;
  csrf: string;
  sessionId: number;
}

async function land(svc: TestService, app: TestApp, payload: Json): Promise<Landed> {
  const res = await svc.request(`/portal/api/auth/app/${app.appName}`, {
    method: "POST",
    headers: { Accept: "text/html" },
    body: new URLSearchParams({ signed_request: await signLaunch(payload, app.apiKey) }),
  });
  assert.equal(res.status, 303, await res.text());
  const url = new URL(res.headers.get("Location")!);
  const cookie = res.headers.get("Set-Cookie")!.split("; ")[0];
  const page = await get(svc, cookie, url.pathname + url.search);
  const csrf = /name="csrf" value="([^"]+)"/.exec(page.html)?.[1];
  assert.ok(csrf, "the page's CSRF token");
  const sessionId = Number(/\/sessions\/(\d+)/.exec(url.pathname)![1]);
  return { url: url.pathname + url.search, cookie, csrf, sessionId };
}

async function get(svc: TestService, cookie: string, path: string) {
  const res = await svc.request(path, { headers: { Cookie: cookie, Accept: "text/html" } });
  return { status: res.status, html: await res.text() };
}

/** The `lang` of the page's <html>. */
function htmlLang(html: string): string | undefined {
  return /<html lang="([^"]*)"/.exec(html)?.[1];
}

function postLanguage(svc: TestService, l: Landed, fields: Record<string, string>) {
  return svc.request("/portal/language", {
    method: "POST",
    headers: { Cookie: l.cookie, Accept: "text/html" },
    body: new URLSearchParams({ csrf: l.csrf, ...fields }),
  });
}

/** Runs `fn` with a fresh service (on each test backend) and an app named crm. */
function test(name: string, fn: (svc: TestService, app: TestApp) => Promise<void>) {
  for (const backend of backends) {
    Deno.test({
      name: `portal language (${backend.name}): ${name}`,
      sanitizeOps: false,
      sanitizeResources: false,
      async fn() {
        const svc = await startTestService(backend);
        try {
          await fn(svc, await createTestApp(svc, await svc.adminToken(), "crm"));
        } finally {
          await svc.close();
        }
      },
    });
  }
}

test(
  "a fr launch makes the screen, the list and a session opened from it French",
  async (svc, app) => {
    const l = await land(svc, app, launchPayload({}, { locale: "fr" }));
    const screen = await get(svc, l.cookie, l.url);
    assert.equal(htmlLang(screen.html), "fr");
    assert.match(screen.html, />Statut</);
    assert.match(screen.html, />Mes sessions</);
    const list = await get(svc, l.cookie, "/portal/sessions");
    assert.equal(htmlLang(list.html), "fr");
    assert.match(list.html, /<h1>Mes sessions<\/h1>/);
    const link = new RegExp(`href="(/portal/sessions/${l.sessionId})"`).exec(list.html)?.[1];
    assert.ok(link, "the list links to the launched session");
    const opened = await get(svc, l.cookie, link);
    assert.equal(opened.status, 200);
    assert.equal(htmlLang(opened.html), "fr");
    assert.match(opened.html, />Statut</);
    assert.doesNotMatch(opened.html, />Status</);
  },
);

test(
  "a launch without a locale speaks the agent's profile locale on every page",
  async (svc, app) => {
    // The first launch gives the agent's profile its locale; the second names none.
    await land(svc, app, launchPayload({ referenceNumber: "CASE1" }, { locale: "es" }));
    const l = await land(svc, app, launchPayload({ referenceNumber: "CASE2" }));
    for (const path of [l.url, "/portal/sessions", `/portal/sessions/${l.sessionId}`]) {
      const page = await get(svc, l.cookie, path);
      assert.equal(htmlLang(page.html), "es", path);
      assert.match(page.html, />Mis sesiones</, path);
    }
  },
);

test("the header's menu names each language in itself and marks the login's", async (svc, app) => {
  const l = await land(svc, app, launchPayload({}, { locale: "fr-CA" }));
  const menu = /<form[^>]*data-testid="language-menu"[^]*?<\/form>/.exec(
    (await get(svc, l.cookie, l.url)).html,
  )?.[0];
  assert.ok(menu, "the menu");
  assert.match(menu, /action="\/portal\/language"/);
  assert.match(menu, /<label for="portal-language">Langue<\/label>/);
  assert.match(menu, /<select id="portal-language" name="language">/);
  assert.match(menu, /<option value="fr" lang="fr" selected>Français<\/option>/);
  assert.match(menu, /<option value="en" lang="en" ?>English<\/option>/);
  assert.match(menu, /<option value="es" lang="es" ?>Español<\/option>/);
  assert.match(menu, /<option value="de" lang="de" ?>Deutsch<\/option>/);
  assert.match(menu, new RegExp(`name="back" value="/portal/sessions/${l.sessionId}\\?launch=`));
});

test("the menu changes every page of the login and comes back", async (svc, app) => {
  const l = await land(svc, app, launchPayload({}, { locale: "fr" }));
  const res = await postLanguage(svc, l, { language: "de", back: l.url });
  assert.equal(res.status, 303);
  assert.equal(res.headers.get("Location"), l.url);
  const pages = [
    l.url,
    "/portal/sessions",
    `/portal/sessions/${l.sessionId}`,
    `/portal/sessions/${l.sessionId}/remote`,
  ];
  for (const path of pages) {
    const page = await get(svc, l.cookie, path);
    assert.equal(page.status, 200, path);
    assert.equal(htmlLang(page.html), "de", path);
    assert.match(page.html, />Meine Sitzungen</, path);
  }
  // Without a page to come back to: the sessions list.
  const plain = await postLanguage(svc, l, { language: "en" });
  assert.equal(plain.headers.get("Location"), "/portal/sessions");
  assert.equal(htmlLang((await get(svc, l.cookie, l.url)).html), "en");
});

test("an unknown language answers 400 with a clear message", async (svc, app) => {
  const l = await land(svc, app, launchPayload({}, { locale: "fr" }));
  for (const language of ["it", "", "FR", "fr-CA"]) {
    const res = await postLanguage(svc, l, { language, back: l.url });
    assert.equal(res.status, 400, language);
    const body = await res.json();
    assert.equal(body.code, "invalid_language");
    assert.equal(body.message, "language must be one of: en, fr, es, de");
  }
  assert.equal(htmlLang((await get(svc, l.cookie, l.url)).html), "fr", "nothing changed");
});

test("the menu refuses to come back to a page off the portal", async (svc, app) => {
  const l = await land(svc, app, launchPayload({}, { locale: "fr" }));
  const offSite = [
    "https://evil.example/portal/sessions",
    "//evil.example/portal/sessions",
    "/\\evil.example/portal",
    "javascript:alert(1)",
    "/admin",
    "portal/sessions",
  ];
  for (const back of offSite) {
    const res = await postLanguage(svc, l, { language: "de", back });
    assert.equal(res.status, 400, back);
    assert.equal(res.headers.get("Location"), null, back);
    const body = await res.json();
    assert.equal(body.code, "invalid_back", back);
    assert.equal(body.message, "back must be a path of this portal, such as /portal/sessions");
  }
  assert.equal(htmlLang((await get(svc, l.cookie, l.url)).html), "fr", "nothing changed");
});

test("the menu refuses a form without the login's CSRF token", async (svc, app) => {
  const l = await land(svc, app, launchPayload({}, { locale: "fr" }));
  const res = await postLanguage(svc, l, { csrf: "forged", language: "de", back: l.url });
  assert.equal(res.status, 403);
  await res.body?.cancel();
  assert.equal(htmlLang((await get(svc, l.cookie, l.url)).html), "fr");
});

test("another login of the same agent keeps its own language", async (svc, app) => {
  const first = await land(svc, app, launchPayload({ referenceNumber: "A1" }, { locale: "fr" }));
  const second = await land(svc, app, launchPayload({ referenceNumber: "A2" }, { locale: "es" }));
  const res = await postLanguage(svc, second, { language: "de", back: second.url });
  assert.equal(res.status, 303);
  assert.equal(htmlLang((await get(svc, second.cookie, "/portal/sessions")).html), "de");
  // The first login still speaks its launch's language, on its pages and the shared list.
  assert.equal(htmlLang((await get(svc, first.cookie, first.url)).html), "fr");
  assert.equal(htmlLang((await get(svc, first.cookie, "/portal/sessions")).html), "fr");
  // The menu changed no profile: a third launch naming no locale speaks the profile's (es).
  const third = await land(svc, app, launchPayload({ referenceNumber: "A3" }));
  assert.equal(htmlLang((await get(svc, third.cookie, third.url)).html), "es");
});

test("a password sign-in speaks the agent's profile locale", async (svc, app) => {
  const l = await land(svc, app, launchPayload({}, { locale: "es" }));
  const [agent] = await svc.db.sql`select user_id from logins where launch_id is not null`;
  const token = await svc.adminToken();
  const pw = await svc.api("PUT", `/api/v1/admin/agents/${agent.userId}/password`, token, {
    password: "long enough password",
  });
  assert.equal(pw.status, 204);
  const signIn = await postSignIn(svc, "/portal/login", {
    email: "ada@example.com",
    password: "long enough password",
    next: "/portal/sessions",
  });
  assert.equal(signIn.status, 303);
  const cookie = signIn.headers.get("Set-Cookie")!.split(";")[0];
  const list = await get(svc, cookie, "/portal/sessions");
  assert.equal(htmlLang(list.html), "es");
  assert.equal(htmlLang((await get(svc, cookie, `/portal/sessions/${l.sessionId}`)).html), "es");
});

test("the lost-password page speaks the browser's login language", async (svc, app) => {
  const l = await land(svc, app, launchPayload({}, { locale: "fr" }));
  const page = (cookie: string) =>
    svc.request("/portal/password-reset", {
      headers: { Cookie: cookie, Accept: "text/html", "Accept-Language": "de-DE,de;q=0.9" },
    }).then((res) => res.text());
  assert.equal(htmlLang(await page(l.cookie)), "fr");
  // Without a live login: the browser's Accept-Language.
  assert.equal(htmlLang(await page("portal_login=unknown")), "de");
  assert.equal(htmlLang(await page("")), "de");
});
