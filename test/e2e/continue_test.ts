/// <reference lib="dom" />
/**
 * `deno task sign --open` in Chromium against an app with frame ancestors: the page it writes is a
 * file, so Chromium posts the launch with `Origin: null`; the portal answers the continue page
 * (no cookie yet), and its button signs in and opens the session (server/launch/continue.tsx).
 */
import assert from "node:assert/strict";
import { seriousViolations, WCAG22 } from "../helpers/axe.ts";
import { launchChromium } from "../helpers/browser.ts";
import { pglite } from "../helpers/db.ts";
import { startHttpService } from "../helpers/http_service.ts";
import { createTestApp } from "../helpers/launch.ts";
import { launchPayload } from "../helpers/payload.ts";
import { runSign } from "../helpers/sign_tool.ts";
import { CONTINUE_ARM_MS } from "../../server/launch/continue.tsx";

/** Runs `deno task sign --open` and answers the page's path. */
async function signOpen(launchUrl: string, apiKey: string, payload: unknown): Promise<string> {
  const out = await runSign(["--key", apiKey, "--open", launchUrl], payload);
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  return new TextDecoder().decode(out.stdout).trim();
}

Deno.test({
  name: "continue in Chromium: a launch page opened from a file asks, then opens the session",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    // localhost: Chromium keeps the portal's Secure cookie there over http.
    const svc = await startHttpService(pglite, {}, "localhost");
    const admin = await svc.adminToken();
    const app = await createTestApp(svc, admin, "framed", {
      frameAncestors: ["https://host.test"],
    });
    const launchUrl = `${svc.base}/portal/api/auth/app/framed`;
    const page1 = await signOpen(
      launchUrl,
      app.apiKey,
      launchPayload({}, { first_name: "Katherine", last_name: "Johnson" }),
    );
    const browser = await launchChromium();
    try {
      const context = await browser.newContext({ viewport: { width: 320, height: 640 } });
      const page = await context.newPage();
      // The page's timers stand still until the test moves them: the button's arming is seen.
      await page.clock.install();
      await page.clock.pauseAt(new Date(Date.now() + 1_000));
      // What Chromium sends for a form posted from a file: the origin the check cannot trust.
      const posted = page.waitForRequest((r) => r.url() === launchUrl && r.method() === "POST");
      await page.goto(`file://${page1}`);
      assert.equal((await (await posted).allHeaders()).origin, "null");
      const button = page.getByRole("button", { name: "Continue as Katherine Johnson" });
      await button.waitFor();
      assert.equal(await button.isDisabled(), true, "off as the page shows");
      await page.clock.runFor(CONTINUE_ARM_MS - 100);
      assert.equal(await button.isDisabled(), true, "still off before it is armed");
      await page.clock.runFor(100);
      assert.equal(await button.isDisabled(), false, "armed");
      await page.clock.resume();
      assert.equal(await page.title(), "Continue to the portal · Portal Launcher");
      const cookies = async () => (await context.cookies()).map((c) => c.name);
      assert.deepEqual(await cookies(), [], "not signed in before the click");
      assert.deepEqual(await seriousViolations(page, WCAG22), []);
      assert.ok(
        await page.evaluate(() => document.documentElement.scrollWidth <= innerWidth),
        "fits 320 px",
      );
      await Promise.all([page.waitForURL(/\/portal\/sessions\/\d+\?launch=\d+$/), button.click()]);
      await page.getByRole("heading", { level: 1 }).waitFor();
      assert.ok((await cookies()).includes("portal_login"), "signed in by the click");

      // The same page posted again is a replay: the browser signed in by it goes back to the
      // session (docs/launch-protocol.md, re-entry), no second continue page.
      const sessionUrl = page.url();
      const again = await context.newPage();
      const second = again.waitForResponse((r) => r.url() === launchUrl);
      await again.goto(`file://${page1}`);
      assert.equal((await second).status(), 303);
      await again.waitForURL(sessionUrl);
    } finally {
      await browser.close();
      await Deno.remove(page1).catch(() => {});
      await svc.close();
    }
  },
});
