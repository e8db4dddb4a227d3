/// <reference lib="dom" />
/**
 * Every page of the service a person sees, for the design walk (test/e2e/design_walk_test.ts) and
 * the screenshot tool (tools/screens.ts): one service with an app, agents, a session with devices,
 * guided paths and a demo CRM; each page is a name and a way to open it in a Playwright page
 * (signed in as the administrator, as an agent through a launch, or signed out).
 */
import type { Browser, BrowserContext, Page } from "playwright-core";
import { demoApp } from "../../widget/demo/app.ts";
import { submitSignIn } from "./browser.ts";
import { pglite } from "./db.ts";
import { type HttpTestService, startHttpService } from "./http_service.ts";
import { createTestApp, signLaunch } from "./launch.ts";
import { launchPayload } from "./payload.ts";

const ADMIN = { email: "root@example.com", password: "root-password-0123456789" };

/** Who a page is seen by. */
export type Viewer = "admin" | "agent" | "anonymous";

/** One page: a name, who sees it, and how to open it (after which the page is ready). */
export interface WalkPage {
  name: string;
  viewer: Viewer;
  open(page: Page): Promise<void>;
}

/** The service, the demo CRM and the pages to walk. */
export interface Walk {
  svc: HttpTestService;
  pages: WalkPage[];
  /** A browser context signed in as `viewer`. */
  context(browser: Browser, viewer: Viewer, width: number): Promise<BrowserContext>;
  close(): Promise<void>;
}

const LONG_AGENT = {
  id: "agent43",
  email: "maximiliana.josefina.von-und-zu-langenname@example-company.org",
  first_name: "Maximiliana-Josefina",
  last_name: "Von und zu Langenname",
};

const DEVICE = {
  name: "PC-OF-THE-THIRD-FLOOR-RECEPTION-DESK",
  os: "Windows",
  os_version: "10.0.22631",
  serial: "500Ab00000XyZ1500Ab00000XyZ1",
  model: "OptiPlex 7090 Ultra Small Form Factor",
  av_prods: [{
    company: "Sophisticated Antivirus Company",
    name: "Endpoint Protection Suite",
    version: "12.4.5-beta",
    latest: true,
  }],
};

/** A launch in `flavor` (a real signed form post); answers the session screen's URL. */
async function launch(page: Page, base: string, apiKey: string, params: Record<string, unknown>) {
  const signed = await signLaunch(
    launchPayload({ contactFirstName: "Maximiliana-Josefina", ...params }),
    apiKey,
  );
  await page.goto(`${base}/healthz`);
  await page.setContent(
    `<form method="post" action="${base}/portal/api/auth/app/crm">` +
      `<input name="signed_request" value="${signed}"></form>`,
  );
  await Promise.all([
    page.waitForURL(/\/portal\/sessions\/\d+/),
    page.evaluate(() => document.forms[0].submit()),
  ]);
  await page.locator("main h1").waitFor();
  return page.url();
}

/** Starts the service and the demo CRM, and lists the pages. */
export async function startWalk(): Promise<Walk> {
  const svc = await startHttpService(pglite, {
    ADMIN_EMAIL: ADMIN.email,
    ADMIN_PASSWORD: ADMIN.password,
  }, "localhost");
  const admin = await svc.adminToken();
  const app = await createTestApp(svc, admin, "crm");
  // With frame ancestors: a launch from a page without an origin shows the continue page.
  const framed = await createTestApp(svc, admin, "framed", {
    frameAncestors: ["https://host.test"],
  });
  await svc.api("POST", "/api/v1/admin/custom-fields", admin, {
    name: "priority",
    label: "Priority level of the customer's request",
  });
  const category = await (await svc.api("POST", "/api/v1/admin/path-categories", admin, {
    name: "Printers and scanners of the third floor",
  })).json();
  const path = await (await svc.api("POST", "/api/v1/admin/paths", admin, {
    title: "Printer offline",
    categoryUid: category.uid,
    tags: ["printer"],
    published: true,
    steps: [{ title: "Check the panel", body: "Look at the panel and note the message." }],
  })).json();
  const demoServer = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    demoApp({ portalUrl: `${svc.base}/portal`, appName: "crm", apiKey: app.apiKey }),
  );
  const demo = `http://127.0.0.1:${demoServer.addr.port}`;
  const base = svc.base;
  const key = app.apiKey;
  const session = { url: "" };

  const pages: WalkPage[] = [];
  const add = (name: string, viewer: Viewer, open: (page: Page) => Promise<void>) =>
    pages.push({ name, viewer, open });
  const go = (path: string) => async (page: Page) => {
    await page.goto(`${base}${path}`);
  };
  /** Shows an HTML answer of the service as the browser would (its styles from the service). */
  const show = (path: string, init: RequestInit) => async (page: Page) => {
    const html = await (await svc.request(path, init)).text();
    await page.goto(`${base}/healthz`);
    await page.setContent(html, { waitUntil: "load" });
  };

  add("entry page", "anonymous", go("/"));
  add("404 page", "anonymous", go("/no/such/page"));
  add("launch error page", "anonymous", async (page) => {
    await page.goto(`${base}/healthz`);
    await page.setContent(
      `<form method="post" action="${base}/portal/api/auth/app/crm">` +
        `<input name="signed_request" value="bad.signature"></form>`,
    );
    await Promise.all([
      page.waitForURL(/\/portal\/api\/auth\/app\/crm/),
      page.evaluate(() => document.forms[0].submit()),
    ]);
  });
  add("launch continue page", "anonymous", async (page) => {
    const signed = await signLaunch(launchPayload(), framed.apiKey);
    await show("/portal/api/auth/app/framed", {
      method: "POST",
      headers: { Accept: "text/html", Origin: "null" },
      body: new URLSearchParams({ signed_request: signed }),
    })(page);
  });
  add("cookies-blocked page", "anonymous", async (page) => {
    const url = new URL(session.url);
    await show(`${url.pathname}${url.search}`, {
      headers: { Accept: "text/html", "Sec-Fetch-Dest": "iframe" },
    })(page);
  });
  add("5xx page", "anonymous", async (page) => {
    const { serverErrorPage } = await import("../../server/http/errors.ts");
    await page.goto(`${base}/healthz`);
    await page.setContent(serverErrorPage(crypto.randomUUID()), { waitUntil: "load" });
  });
  add("portal sign-in", "anonymous", go("/portal/login"));
  add("portal password reset", "anonymous", go("/portal/password-reset"));
  add("portal reset link (expired)", "anonymous", go(`/portal/password-reset/${"A".repeat(43)}`));
  add("admin sign-in", "anonymous", go("/admin/login"));
  add("admin password reset", "anonymous", go("/admin/password-reset"));

  for (const flavor of ["standard", "embedded", "seesupport"]) {
    add(`portal ${flavor}`, "agent", async (page) => {
      session.url = await launch(page, base, key, {
        target: flavor,
        customFields: { priority: "high" },
        deviceComputer: DEVICE,
      });
    });
  }
  add("portal standard (French)", "agent", async (page) => {
    await launch(page, base, key, { "user.locale": "fr-CA", deviceComputer: DEVICE });
  });
  add("portal path runner", "agent", async (page) => {
    const url = new URL(session.url);
    const id = url.pathname.split("/")[3];
    await page.goto(`${base}/portal/sessions/${id}/paths/${path.uid}${url.search}`);
  });
  add("portal remote view", "agent", async (page) => {
    await launch(page, base, key, { target: "standard", paths: { remote: true } });
  });
  add("portal sessions list", "agent", go("/portal/sessions"));
  add("screen sharing: code entry", "anonymous", go("/portal/r"));
  add("screen sharing: customer's page", "anonymous", async (page) => {
    const id = new URL(session.url).pathname.split("/")[3];
    const token = await svc.adminToken();
    const invite = await (await svc.api("POST", `/api/v1/sessions/${id}/remote`, token)).json();
    await page.goto(invite.joinUrl);
  });
  add("screen sharing: unknown link", "anonymous", go(`/portal/r/${"A".repeat(43)}`));

  const [{ id: launchId }] = await svc.db.sql`select coalesce(max(id), 0)::int as id from launches`;
  for (
    const screen of [
      "/admin/apps",
      "/admin/apps/new",
      "/admin/apps/crm",
      "/admin/apps/crm/edit",
      "/admin/apps/crm/deliveries",
      "/admin/apps/crm/try-launch",
      "/admin/users",
      "/admin/teams",
      "/admin/sessions",
      "/admin/organizations",
      "/admin/field-settings",
      "/admin/custom-fields",
      "/admin/guided-paths",
      "/admin/guided-paths/paths/new",
      `/admin/guided-paths/paths/${path.uid}`,
      "/admin/launches",
      "/admin/inspector",
    ]
  ) add(`admin ${screen}`, "admin", go(screen));
  add("admin try launch dry run", "admin", async (page) => {
    await page.goto(`${base}/admin/apps/crm/try-launch`);
    await Promise.all([
      page.waitForSelector("[data-testid=dry-run]"),
      page.click("button[value=dry_run]"),
    ]);
  });
  add("admin launch detail", "admin", async (page) => {
    const [{ id }] = await svc.db.sql`select max(id)::int as id from launches`;
    await page.goto(`${base}/admin/launches/${id ?? launchId}`);
  });
  add("admin user detail", "admin", async (page) => {
    const [{ id }] = await svc.db.sql`select max(id)::int as id from users`;
    await page.goto(`${base}/admin/users/${id}`);
  });
  add("API reference", "anonymous", go("/api/v1/docs"));
  add("demo CRM cases", "anonymous", async (page) => {
    await page.goto(`${demo}/`);
  });

  let signedInAgent = false;
  return {
    svc,
    pages,
    async context(browser, viewer, width) {
      const context = await browser.newContext({ viewport: { width, height: 800 } });
      const page = await context.newPage();
      if (viewer === "admin") {
        await page.goto(`${base}/admin/login`);
        await submitSignIn(page, ADMIN.email, ADMIN.password);
      } else if (viewer === "agent") {
        // A second agent first, with a long name and e-mail: the transfer list shows it.
        if (!signedInAgent) {
          const signed = await signLaunch(launchPayload({}, LONG_AGENT), key);
          await page.goto(`${base}/healthz`);
          await page.setContent(
            `<form method="post" action="${base}/portal/api/auth/app/crm">` +
              `<input name="signed_request" value="${signed}"></form>`,
          );
          await Promise.all([
            page.waitForURL(/\/portal\/sessions\/\d+/),
            page.evaluate(() => document.forms[0].submit()),
          ]);
          await context.clearCookies();
          signedInAgent = true;
        }
      }
      await page.close();
      return context;
    },
    async close() {
      await demoServer.shutdown();
      await svc.close();
    },
  };
}
