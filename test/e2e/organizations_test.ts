/// <reference lib="dom" />
/**
 * Organizations on the portal pages in Chromium (issue 32), portal on http://localhost and host
 * pages on two http://127.0.0.1 origins: sign-in with `?org=` and the organization question,
 * the lost-password page of one organization, framing that follows the session (not the login),
 * and a launch form posted from a site the app does not allow. One service, host pair and
 * browser for the file.
 */
import assert from "node:assert/strict";
import type { Browser, BrowserContext, Page, Response as PwResponse } from "playwright-core";
import { hashPassword } from "../../server/crypto/hashing.ts";
import { launchChromium, submitSignIn } from "../helpers/browser.ts";
import { waitUntil } from "../helpers/crm_server.ts";
import { backends } from "../helpers/db.ts";
import { type HttpTestService, startHttpService } from "../helpers/http_service.ts";
import { createTestApp, launchOk, signLaunch, type TestApp } from "../helpers/launch.ts";
import { type Json, launchPayload } from "../helpers/payload.ts";
import { sharedFixture, uniqueId } from "../helpers/shared.ts";
import { type SmtpSink, startSmtpSink } from "../helpers/smtp.ts";
import { ensureWidgetBuilt } from "../helpers/widget.ts";

const opts = { sanitizeOps: false, sanitizeResources: false };
/** The one password of the twin agents (the same in both organizations). */
const PASSWORD = "same-password-in-both-01";
const ORGS = { acme: "Acme Corp", globex: "Globex Inc" } as const;

/** An agent of one organization and the one session its launch made. */
interface Twin {
  agentId: number;
  sessionId: number;
}

interface Fixture {
  svc: HttpTestService;
  smtp: SmtpSink;
  browser: Browser;
  /** A host page origin among the app `crm`'s allowed origins. */
  host: string;
  /** A host page origin no app allows. */
  foreign: string;
  /** App of organization `default`, allowed origin `host`. */
  crm: TestApp;
  /** One e-mail, an agent in each of acme and globex, one password for both. */
  email: string;
  acme: Twin;
  globex: Twin;
  close(): Promise<void>;
}

/** The host pages: one blank page that records every message it receives. */
const HOST_PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Host</title>
<script>globalThis.messages = [];
addEventListener("message", (e) => messages.push({ origin: e.origin, data: e.data }));</script>
</head><body><main><h1>Host</h1></main></body></html>`;

const fixture = sharedFixture<Fixture>(async () => {
  await ensureWidgetBuilt();
  const smtp = await startSmtpSink();
  // PostgreSQL when TEST_DATABASE_URL is set, else PGlite.
  const svc = await startHttpService(
    backends.at(-1)!,
    { SMTP_URL: smtp.url, MAIL_RETRY_BASE_MS: "50" },
    "localhost",
  );
  const serve = () =>
    Deno.serve(
      { hostname: "127.0.0.1", port: 0, onListen() {} },
      () => new Response(HOST_PAGE, { headers: { "Content-Type": "text/html" } }),
    );
  const [hostServer, foreignServer] = [serve(), serve()];
  const host = `http://127.0.0.1:${hostServer.addr.port}`;
  const foreign = `http://127.0.0.1:${foreignServer.addr.port}`;
  const admin = await svc.adminToken();
  const crm = await createTestApp(svc, admin, "crm", { frameAncestors: [host] });
  const email = `${uniqueId("twin")}@example.com`;
  const twin = async (slug: keyof typeof ORGS): Promise<Twin> => {
    const res = await svc.api("POST", "/api/v1/admin/organizations", admin, {
      slug,
      name: ORGS[slug],
    });
    assert.equal(res.status, 201, await res.text());
    const app = await createTestApp(svc, admin, `${slug}-crm`, { organization: slug });
    const user = { id: `${slug}-agent`, email, first_name: slug };
    const payload = launchPayload({ referenceNumber: `${slug.toUpperCase()}-1` }, user);
    const { agentId, sessionId } = await launchOk(svc, app, payload);
    await svc.db.sql`update users set password_hash = ${await hashPassword(PASSWORD)}
      where id = ${agentId}`;
    return { agentId, sessionId };
  };
  const acme = await twin("acme");
  const globex = await twin("globex");
  assert.notEqual(acme.agentId, globex.agentId, "one agent per organization");
  const browser = await launchChromium();
  const close = async () => {
    await browser.close();
    await hostServer.shutdown();
    await foreignServer.shutdown();
    await svc.close();
    await smtp.close();
  };
  return { svc, smtp, browser, host, foreign, crm, email, acme, globex, close };
}, (f) => f.close());

/** The session ids the sessions list links to, sorted. */
async function listedSessions(page: Page): Promise<number[]> {
  const hrefs = await page.locator("[data-testid=sessions] tbody a").evaluateAll((links) =>
    links.map((a) => a.getAttribute("href") ?? "")
  );
  return hrefs.map((h) => Number(h.split("/").pop())).sort((a, b) => a - b);
}

/** A fresh browser context (its own cookies) with a page of 1000 × 800. */
async function freshPage(f: Fixture): Promise<{ context: BrowserContext; page: Page }> {
  const context = await f.browser.newContext({ viewport: { width: 1000, height: 800 } });
  return { context, page: await context.newPage() };
}

/** Whether the context holds a portal login cookie (Path=/portal) for `base`. */
const hasLogin = async (context: BrowserContext, base: string) =>
  (await context.cookies(`${base}/portal/sessions`)).some((c) => c.name === "portal_login");

/** Counts of what a launch writes. */
async function written(f: Fixture): Promise<Json> {
  const [row] = await f.svc.db.sql`select
    (select count(*)::int from sessions) as sessions,
    (select count(*)::int from customers) as customers,
    (select count(*)::int from users) as users,
    (select count(*)::int from logins) as logins`;
  return { ...row };
}

type Seen = { origin: string; data: { type?: string; sessionId?: number } }[];
const messages = (page: Page) =>
  page.evaluate(() => (globalThis as unknown as { messages: Seen }).messages);
/** The frame-ancestors directive of a response's CSP. */
const ancestors = async (res: PwResponse) =>
  (await res.allHeaders())["content-security-policy"]?.match(/frame-ancestors[^;]*/)?.[0];
/** Waits until the host page got `count` ready messages. */
const waitReady = (page: Page, count: number) =>
  page.waitForFunction(
    (n) =>
      (globalThis as unknown as { messages: Seen }).messages
        .filter((m) => m.data?.type === "portal-launcher:ready").length === n,
    count,
  );

Deno.test("org sign-in in Chromium: ?org= signs in within that organization", opts, async () => {
  const f = await fixture();
  const { context, page } = await freshPage(f);
  try {
    await page.goto(`${f.svc.base}/portal/login?org=acme`);
    assert.equal(await page.locator("input[type=hidden][name=org]").inputValue(), "acme");
    assert.equal(await page.locator("input[type=text][name=org]").count(), 0, "not asked");
    // The same password is right in both organizations: the named one decides.
    assert.equal(await submitSignIn(page, f.email, PASSWORD), 303);
    await page.waitForURL(`${f.svc.base}/portal/sessions`);
    assert.match(await page.locator("h1").innerText(), /My sessions/);
    assert.deepEqual(await listedSessions(page), [f.acme.sessionId], "acme's session only");
    assert.match(await page.locator("[data-testid=sessions]").innerText(), /ACME-1/);
    assert.doesNotMatch(await page.content(), /GLOBEX-1/);
  } finally {
    await context.close();
  }
});

Deno.test(
  "org sign-in in Chromium: a password right in two organizations asks which; the pick signs in",
  opts,
  async () => {
    const f = await fixture();
    const { context, page } = await freshPage(f);
    try {
      await page.goto(`${f.svc.base}/portal/login`);
      assert.equal(await page.locator("input[name=org]").count(), 0, "no organization field");
      assert.equal(await submitSignIn(page, f.email, PASSWORD), 200, "asked, not signed in");
      assert.match(
        await page.getByRole("status").innerText(),
        /This e-mail has accounts in several organizations/,
      );
      assert.ok(!page.url().includes("/sessions"));
      const org = page.getByLabel("Organization");
      assert.equal(await org.inputValue(), "");
      const html = await page.content();
      assert.ok(!html.includes("acme") && !html.includes("globex"), "no organization listed");
      assert.equal(await page.locator("input[name=email]").inputValue(), f.email, "kept");
      assert.ok(!await hasLogin(context, f.svc.base), "no login yet");
      await org.fill("globex");
      assert.equal(await submitSignIn(page, f.email, PASSWORD), 303);
      await page.waitForURL(`${f.svc.base}/portal/sessions`);
      assert.ok(await hasLogin(context, f.svc.base));
      assert.deepEqual(await listedSessions(page), [f.globex.sessionId], "globex's, not acme's");
      assert.match(await page.locator("[data-testid=sessions]").innerText(), /GLOBEX-1/);
      // The other organization's session answers like a missing one.
      const other = await page.goto(`${f.svc.base}/portal/sessions/${f.acme.sessionId}`);
      assert.equal(other?.status(), 404);
    } finally {
      await context.close();
    }
  },
);

Deno.test(
  "org password reset in Chromium: ?org= page, one organization's link, no enumeration",
  opts,
  async () => {
    const f = await fixture();
    const { context, page } = await freshPage(f);
    try {
      const ask = async (email: string): Promise<string> => {
        await page.goto(`${f.svc.base}/portal/password-reset?org=acme`);
        assert.match(await page.locator("h1").innerText(), /Forgot your password\?/);
        assert.equal(await page.locator("input[type=hidden][name=org]").inputValue(), "acme");
        await page.getByLabel("E-mail").fill(email);
        const [res] = await Promise.all([
          page.waitForResponse((r) => r.request().method() === "POST"),
          page.getByRole("button", { name: "Send the link" }).click(),
        ]);
        assert.equal(res.status(), 200);
        await page.getByText(`If an account exists for ${email}, we sent it a link`).waitFor();
        return (await page.locator("main").innerText()).replaceAll(email, "<email>");
      };
      const known = await ask(f.email);
      const unknown = await ask(`${uniqueId("nobody")}@example.com`);
      assert.equal(unknown, known, "the same page for an unknown e-mail");
      assert.match(
        await page.getByRole("link", { name: "Sign in" }).getAttribute("href") ?? "",
        /\/portal\/login\?org=acme$/,
      );
      const mail = await waitUntil(
        () => f.smtp.messages.find((m) => m.to.includes(f.email)),
        "the reset mail",
      );
      assert.match(mail.subject, /\(Acme Corp\)$/, "the link of acme's agent");
      await new Promise((r) => setTimeout(r, 500));
      const all = f.smtp.messages.filter((m) => m.to.includes(f.email));
      assert.deepEqual(all.map((m) => m.subject), [mail.subject], "none for globex's agent");
    } finally {
      await context.close();
    }
  },
);

Deno.test(
  "framing in Chromium follows the session: only the launched session renders and messages",
  opts,
  async () => {
    const f = await fixture();
    const agent = { id: uniqueId("framed"), email: `${uniqueId("framed")}@example.com` };
    // A session of the same agent that another launch (another login) opened.
    const other = await launchOk(f.svc, f.crm, launchPayload({ referenceNumber: "OTHER" }, agent));
    const { context, page } = await freshPage(f);
    const refused: string[] = [];
    page.on("console", (m) => {
      if (/violates the following Content Security Policy/.test(m.text())) refused.push(m.text());
    });
    try {
      await page.goto(`${f.host}/`);
      // The host launches into its own iframe, as the widget does: the login is this launch's.
      const signed = await signLaunch(
        launchPayload({ referenceNumber: "MINE" }, agent),
        f.crm.apiKey,
      );
      const frame = (name: string) => page.frameLocator(`iframe[name=${name}]`);
      await page.evaluate(([action, signed]) => {
        const iframe = Object.assign(document.createElement("iframe"), { name: "launched" });
        const form = Object.assign(document.createElement("form"), {
          method: "post",
          action,
          target: "launched",
        });
        form.append(Object.assign(document.createElement("input"), {
          name: "signed_request",
          value: signed,
        }));
        document.body.append(iframe, form);
        form.submit();
      }, [`${f.svc.base}/portal/api/auth/app/crm`, signed]);
      await frame("launched").locator("main h1").filter({ hasText: /Session \d+/ }).waitFor();
      await waitReady(page, 1);
      const ready = (await messages(page)).filter((m) => m.data?.type === "portal-launcher:ready");
      assert.equal(ready.length, 1);
      assert.equal(ready[0].origin, new URL(f.svc.base).origin);
      const mine = ready[0].data.sessionId!;
      assert.notEqual(mine, other.sessionId);
      assert.match(await frame("launched").locator("main").innerText(), /MINE/);

      /** Frames `path` in a new iframe named `name`; answers the portal's response to it. */
      const framePage = async (name: string, path: string) => {
        const [res] = await Promise.all([
          page.waitForResponse((r) => r.url() === `${f.svc.base}${path}`),
          page.evaluate(([name, src]) => {
            document.body.append(Object.assign(document.createElement("iframe"), { name, src }));
          }, [name, `${f.svc.base}${path}`]),
        ]);
        return res;
      };

      // The session the login did not launch: the agent reaches it (200), but it may be framed
      // by the portal itself only, so Chromium refuses to show it here, and nothing is posted.
      const before = (await messages(page)).length;
      const foreignRes = await framePage("other", `/portal/sessions/${other.sessionId}`);
      assert.equal(foreignRes.status(), 200, "the login reaches the session");
      assert.equal(await ancestors(foreignRes), "frame-ancestors 'self'");
      await waitUntil(() => refused.length > 0, "Chromium's frame-ancestors refusal");
      assert.match(
        refused[0],
        /^Framing 'http:\/\/localhost:\d+\/' violates .*"frame-ancestors 'self'"/,
      );
      const otherFrame = await waitUntil(
        () => page.frames().find((fr) => fr.name() === "other" && /^[a-z-]+:\/\//.test(fr.url())),
        "the refused frame's document",
      );
      assert.equal(otherFrame.url(), "chrome-error://chromewebdata/", "Chromium's error page");
      assert.equal(await frame("other").locator("main h1").count(), 0);
      await new Promise((r) => setTimeout(r, 700));
      assert.deepEqual((await messages(page)).slice(before), [], "no message from that session");

      // The launched session, framed again by URL (no ?launch=): it renders and says ready.
      const mineRes = await framePage("mine", `/portal/sessions/${mine}`);
      assert.equal(mineRes.status(), 200);
      assert.equal(await ancestors(mineRes), `frame-ancestors 'self' ${f.host}`);
      await frame("mine").locator("main h1").filter({ hasText: `Session ${mine}` }).waitFor();
      await waitReady(page, 2);
      const sessions = (await messages(page)).slice(before)
        .filter((m) => m.data?.sessionId !== undefined).map((m) => m.data.sessionId);
      assert.ok(sessions.length > 0 && sessions.every((id) => id === mine), `${sessions}`);
      assert.equal(refused.length, 1, "only the other session was refused");
    } finally {
      await context.close();
    }
  },
);

/** Posts `signed` to `action` from a page of `origin`, as an HTML form into `target`. */
async function postLaunch(page: Page, origin: string, action: string, signed: string, target = "") {
  await page.goto(`${origin}/`);
  await page.evaluate(([action, signed, target]) => {
    const form = Object.assign(document.createElement("form"), { method: "post", action, target });
    form.append(Object.assign(document.createElement("input"), {
      name: "signed_request",
      value: signed,
    }));
    document.body.append(form);
    form.submit();
  }, [action, signed, target]);
}

Deno.test(
  "cross-site launch in Chromium: a foreign page's form is refused, nothing written",
  opts,
  async () => {
    const f = await fixture();
    const action = `${f.svc.base}/portal/api/auth/app/crm`;
    const agent = { id: uniqueId("csrf"), email: `${uniqueId("csrf")}@example.com` };
    const signed = await signLaunch(
      launchPayload({ referenceNumber: "XSITE" }, agent),
      f.crm.apiKey,
    );
    const { context, page } = await freshPage(f);
    try {
      const before = await written(f);
      const [tab, res] = await Promise.all([
        context.waitForEvent("page"),
        context.waitForEvent("response", (r) => r.url() === action),
        postLaunch(page, f.foreign, action, signed, "_blank"),
      ]);
      assert.equal(res.status(), 403);
      assert.equal((await res.request().allHeaders())["origin"], f.foreign, "a cross-site post");
      await tab.waitForLoadState();
      assert.equal(tab.url(), action, "the tab stays on the refusal");
      const shown = await tab.locator("main").innerText();
      assert.match(shown, /The portal could not be opened/);
      assert.equal(await tab.getAttribute("main", "data-code"), "origin_not_allowed");
      assert.match(
        shown,
        new RegExp(`${f.foreign.replaceAll(".", "\\.")} is not among the app's allowed origins`),
      );
      assert.deepEqual(await written(f), before, "no session, customer, agent or login");
      assert.ok(!await hasLogin(context, f.svc.base), "no login cookie");
      const [logged] = await f.svc.db.sql`select outcome from launches
        where app_name = 'crm' order by id desc limit 1`;
      assert.equal(logged.outcome, "origin_not_allowed");
      // The same signed request (its nonce unused) posted from the allowed host opens the portal.
      await Promise.all([
        page.waitForURL(/\/portal\/sessions\/\d+\?launch=\d+$/),
        postLaunch(page, f.host, action, signed),
      ]);
      assert.match(await page.locator("main").innerText(), /XSITE/);
      assert.ok(await hasLogin(context, f.svc.base), "signed in now");
      const after = await written(f);
      assert.equal(after.sessions, before.sessions + 1);
      assert.equal(after.users, before.users + 1);
    } finally {
      await context.close();
    }
  },
);
