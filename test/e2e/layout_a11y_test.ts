/// <reference lib="dom" />
/**
 * Every portal flavor from 320 px to wide screens (screenshots at 320, 768 and 1280 px go to
 * test/output/, no horizontal overflow, 44 px tap targets in the embedded flavor), and axe-core
 * audits with zero serious or critical violations on the portal flavors, the path runner, the
 * sign-in and lost-password pages, every admin screen and the API reference. One service and
 * browser for the file.
 */
import assert from "node:assert/strict";
import type { Browser, Page } from "playwright-core";
import { seriousViolations } from "../helpers/axe.ts";
import { launchChromium, OUTPUT_DIR, submitSignIn } from "../helpers/browser.ts";
import { pglite } from "../helpers/db.ts";
import { type HttpTestService, startHttpService } from "../helpers/http_service.ts";
import { createTestApp, signLaunch } from "../helpers/launch.ts";
import { launchPayload } from "../helpers/payload.ts";
import { sharedFixture } from "../helpers/shared.ts";

const opts = { sanitizeOps: false, sanitizeResources: false };
const ADMIN = { email: "root@example.com", password: "root-password-0123456789" };
const FLAVORS = ["standard", "embedded", "seesupport"] as const;
const WIDTHS = [320, 768, 1280];

interface Fixture {
  svc: HttpTestService;
  apiKey: string;
  pathUid: string;
  browser: Browser;
}

const fixture = sharedFixture<Fixture>(async () => {
  const svc = await startHttpService(pglite, {
    ADMIN_EMAIL: ADMIN.email,
    ADMIN_PASSWORD: ADMIN.password,
  }, "localhost");
  const admin = await svc.adminToken();
  const app = await createTestApp(svc, admin, "crm");
  const category = await (await svc.api("POST", "/api/v1/admin/path-categories", admin, {
    name: "Printers and scanners of the third floor",
  })).json();
  let pathUid = "";
  for (const title of ["Printer offline", "Paper jam in tray 2", "Scanner sends empty pages"]) {
    const path = await (await svc.api("POST", "/api/v1/admin/paths", admin, {
      title,
      categoryUid: category.uid,
      tags: ["printer"],
      published: true,
      steps: [{ title: `${title}: check`, body: "Look at the panel and note the message." }],
    })).json();
    pathUid ||= path.uid;
  }
  return { svc, apiKey: app.apiKey, pathUid, browser: await launchChromium() };
}, async (f) => {
  await f.browser.close();
  await f.svc.close();
});

/** A page signed in to the portal by a launch in `flavor` (a form posted from the portal). */
async function launchedPage(f: Fixture, flavor: string, width: number): Promise<Page> {
  const page = await f.browser.newPage({ viewport: { width, height: 800 } });
  await page.goto(`${f.svc.base}/healthz`);
  const signed = await signLaunch(
    launchPayload({ target: flavor, contactFirstName: "Maximiliana-Josefina", paths: {} }),
    f.apiKey,
  );
  await page.setContent(
    `<form method="post" action="${f.svc.base}/portal/api/auth/app/crm">` +
      `<input name="signed_request" value="${signed}"></form>`,
  );
  await Promise.all([
    page.waitForURL(/\/portal\/sessions\/\d+/),
    page.evaluate(() => document.forms[0].submit()),
  ]);
  await page.locator("main h1").waitFor();
  return page;
}

/** Fails when the page scrolls sideways. */
async function assertNoHorizontalOverflow(page: Page, what: string): Promise<void> {
  const [scroll, client] = await page.evaluate(() => [
    document.documentElement.scrollWidth,
    document.documentElement.clientWidth,
  ]);
  assert.ok(scroll <= client, `${what}: ${scroll} px of content in ${client} px`);
}

for (const flavor of FLAVORS) {
  Deno.test(
    `layout: the ${flavor} flavor at 320, 768 and 1280 px, no sideways scroll`,
    opts,
    async () => {
      const f = await fixture();
      for (const width of WIDTHS) {
        const page = await launchedPage(f, flavor, width);
        await page.screenshot({
          path: `${OUTPUT_DIR}portal-${flavor}-${width}.png`,
          fullPage: true,
        });
        await assertNoHorizontalOverflow(page, `${flavor} at ${width} px`);
        if (flavor === "standard" && width === 320) {
          const columns = await page.evaluate(() =>
            getComputedStyle(document.querySelector("main .grid")!).gridTemplateColumns.split(" ")
              .length
          );
          assert.equal(columns, 1, "standard collapses to one column on a narrow screen");
        }
        if (flavor === "embedded") {
          const small = await page.evaluate(() =>
            [...document.querySelectorAll<HTMLElement>(
              "main button, main select, main input:not([type=hidden]), main summary, main a",
            )]
              .filter((el) => el.offsetParent !== null)
              .map((el) => ({ el, box: el.getBoundingClientRect() }))
              .filter(({ box }) => box.height < 44 || box.width < 44)
              .map(({ el, box }) =>
                `${el.tagName} "${el.textContent?.trim()}" ${box.width}x${box.height}`
              )
          );
          assert.deepEqual(small, [], `tap targets of 44 px at ${width} px`);
        }
        await page.close();
      }
    },
  );
}

Deno.test("layout: the path runner fits 320 px", opts, async () => {
  const f = await fixture();
  const page = await launchedPage(f, "embedded", 320);
  const session = page.url().match(/sessions\/(\d+)\?launch=(\d+)/)!;
  await page.goto(
    `${f.svc.base}/portal/sessions/${session[1]}/paths/${f.pathUid}?launch=${session[2]}`,
  );
  await page.locator("[data-testid=path-runner]").waitFor();
  await page.screenshot({ path: `${OUTPUT_DIR}portal-path-runner-320.png`, fullPage: true });
  await assertNoHorizontalOverflow(page, "path runner");
  await page.close();
});

Deno.test(
  "accessibility: the portal's flavors and path runner have no serious axe violation",
  opts,
  async () => {
    const f = await fixture();
    const found: string[] = [];
    for (const flavor of FLAVORS) {
      const page = await launchedPage(f, flavor, 1280);
      found.push(...(await seriousViolations(page)).map((v) => `${flavor}: ${v}`));
      if (flavor === "standard") {
        const session = page.url().match(/sessions\/(\d+)\?launch=(\d+)/)!;
        await page.goto(
          `${f.svc.base}/portal/sessions/${session[1]}/paths/${f.pathUid}?launch=${session[2]}`,
        );
        found.push(...(await seriousViolations(page)).map((v) => `path runner: ${v}`));
        await page.goto(`${f.svc.base}/portal/sessions`);
        found.push(...(await seriousViolations(page)).map((v) => `sessions: ${v}`));
      }
      await page.close();
    }
    assert.deepEqual(found, []);
  },
);

Deno.test("accessibility: sign-in and lost-password pages, portal and admin", opts, async () => {
  const f = await fixture();
  const page = await f.browser.newPage();
  const found: string[] = [];
  for (
    const path of [
      "/portal/login",
      "/portal/password-reset",
      "/admin/login",
      "/admin/password-reset",
    ]
  ) {
    await page.goto(`${f.svc.base}${path}`);
    found.push(...(await seriousViolations(page)).map((v) => `${path}: ${v}`));
  }
  // With an error shown.
  await page.goto(`${f.svc.base}/portal/login`);
  await submitSignIn(page, "nobody@example.com", "wrong-password");
  found.push(...(await seriousViolations(page)).map((v) => `portal login error: ${v}`));
  await page.close();
  assert.deepEqual(found, []);
});

Deno.test("accessibility: every admin screen and the API reference", opts, async () => {
  const f = await fixture();
  const page = await f.browser.newPage({ viewport: { width: 1280, height: 900 } });
  await page.goto(`${f.svc.base}/admin/login`);
  assert.equal(await submitSignIn(page, ADMIN.email, ADMIN.password), 303);
  const screens = [
    "/admin/apps",
    "/admin/apps/new",
    "/admin/apps/crm",
    "/admin/apps/crm/edit",
    "/admin/apps/crm/deliveries",
    "/admin/users",
    "/admin/teams",
    "/admin/sessions",
    "/admin/organizations",
    "/admin/field-settings",
    "/admin/custom-fields",
    "/admin/guided-paths",
    "/admin/guided-paths/paths/new",
    `/admin/guided-paths/paths/${f.pathUid}`,
    "/admin/launches",
    "/admin/inspector",
    "/api/v1/docs",
  ];
  // The detail pages of a launch and of a user (the launches made by the portal tests above, or
  // one made here).
  await launchedPage(f, "standard", 1280).then((p) => p.close());
  const [{ id: launchId }] = await f.svc.db.sql`select max(id)::int as id from launches`;
  const [{ id: userId }] = await f.svc.db.sql`select max(id)::int as id from users`;
  screens.push(`/admin/launches/${launchId}`, `/admin/users/${userId}`);
  const found: string[] = [];
  for (const path of screens) {
    const res = await page.goto(`${f.svc.base}${path}`);
    assert.equal(res?.status(), 200, path);
    found.push(...(await seriousViolations(page)).map((v) => `${path}: ${v}`));
  }
  await page.close();
  assert.deepEqual(found, []);
});
