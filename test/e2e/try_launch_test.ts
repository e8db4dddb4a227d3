/// <reference lib="dom" />
/**
 * Try launch in Chromium: the live JSON view, a Launch into the iframe beside the form and into
 * a new tab (the page's script submits the signed form; no popup is blocked), and the launch log
 * record link.
 */
import assert from "node:assert/strict";
import type { Browser } from "playwright-core";
import { launchChromium, submitSignIn } from "../helpers/browser.ts";
import { pglite } from "../helpers/db.ts";
import { startHttpService } from "../helpers/http_service.ts";
import { createTestApp } from "../helpers/launch.ts";

const ADMIN = { email: "root@example.com", password: "admin-password-123" };

Deno.test({
  name: "try launch in Chromium: live JSON, launch into the iframe and a tab, the record link",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn(t) {
    const svc = await startHttpService(pglite, {
      ADMIN_EMAIL: ADMIN.email,
      ADMIN_PASSWORD: ADMIN.password,
    });
    let browser: Browser | undefined;
    try {
      await createTestApp(svc, await svc.adminToken(), "crm");
      browser = await launchChromium();
      const context = await browser.newContext();
      const page = await context.newPage();
      const errors: string[] = [];
      page.on("console", (m) => m.type() === "error" && errors.push(m.text()));
      page.on("response", (r) => r.status() >= 400 && errors.push(`${r.status()} ${r.url()}`));
      await page.goto(`${svc.base}/admin/login`);
      await submitSignIn(page, ADMIN.email, ADMIN.password);
      await page.goto(`${svc.base}/admin/apps/crm/try-launch`);

      await t.step("the JSON view follows the form", async () => {
        await page.fill("#f-agentFirstName", "Grace-Ann");
        await page.waitForFunction(() =>
          document.getElementById("try-json")!.textContent!.includes("Grace-Ann")
        );
      });

      await t.step("Launch into the iframe lands on the session screen", async () => {
        await page.selectOption("#f-openIn", "iframe");
        await page.click("button[value=launch]");
        const frame = await (await page.waitForSelector("iframe[name=try-launch-frame]"))
          .contentFrame();
        await frame!.waitForURL(/\/portal\/sessions\/\d+\?launch=\d+/);
        await page.click("[data-testid=record-link]");
        await page.waitForURL(/\/admin\/launches\/\d+$/);
      });

      await t.step("Launch into a tab opens the portal in a new tab", async () => {
        await page.goto(`${svc.base}/admin/apps/crm/try-launch`);
        const [tab] = await Promise.all([
          context.waitForEvent("page"),
          page.click("button[value=launch]"),
        ]);
        await tab.waitForURL(/\/portal\/sessions\/\d+\?launch=\d+/);
        assert.equal(await page.locator("[data-testid=launch]").count(), 1);
      });
      assert.deepEqual(errors, [], "no console errors (CSP included)");
    } finally {
      await browser?.close();
      await svc.close();
    }
  },
});
