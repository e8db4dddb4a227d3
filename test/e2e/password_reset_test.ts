/// <reference lib="dom" />
/** The lost-password flow in Chromium, through the pages, with a real SMTP server. */
import assert from "node:assert/strict";
import type { Browser } from "playwright-core";
import { launchChromium } from "../helpers/browser.ts";
import { pglite } from "../helpers/db.ts";
import { startHttpService } from "../helpers/http_service.ts";
import { createTestApp, signLaunch } from "../helpers/launch.ts";
import { launchPayload } from "../helpers/payload.ts";
import { startSmtpSink } from "../helpers/smtp.ts";
import { waitUntil } from "../helpers/crm_server.ts";

Deno.test({
  name: "password reset in Chromium: forgot link, mail, new password, signed in",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const smtp = await startSmtpSink();
    const svc = await startHttpService(pglite, { SMTP_URL: smtp.url, MAIL_RETRY_BASE_MS: "50" });
    let browser: Browser | undefined;
    try {
      const app = await createTestApp(svc, await svc.adminToken(), "pwe2e");
      const email = "grace.agent@example.com";
      const launched = await svc.request("/portal/api/auth/app/pwe2e", {
        method: "POST",
        body: new URLSearchParams({
          signed_request: await signLaunch(
            launchPayload({}, { id: "grace1", email, first_name: "Grace" }),
            app.apiKey,
          ),
        }),
      });
      await launched.body?.cancel();
      browser = await launchChromium();
      const page = await browser.newPage();
      await page.goto(`${svc.base}/portal/login`);
      await page.getByRole("link", { name: "Forgot your password?" }).click();
      await page.getByLabel("E-mail").fill(email);
      await page.getByRole("button", { name: "Send the link" }).click();
      await page.getByText(`If an account exists for ${email}`).waitFor();
      const mail = await waitUntil(
        () => smtp.messages.find((m) => m.to.includes(email)),
        "the reset mail",
      );
      const link =
        mail.decoded.match(/http:\/\/127\.0\.0\.1:\d+\/portal\/password-reset\/\S{43}/)![0];
      await page.goto(link);
      await page.getByLabel("New password (at least 12 characters)").fill("correct-horse-battery");
      await page.getByLabel("Repeat the new password").fill("correct-horse-battery");
      await page.getByRole("button", { name: "Save and sign in" }).click();
      await page.waitForURL(`${svc.base}/portal/sessions`);
      assert.match(await page.locator("h1").innerText(), /My sessions/);
      // The new password signs in from a fresh browser context.
      const other = await browser.newPage();
      await other.goto(`${svc.base}/portal/login`);
      await other.getByLabel("E-mail").fill(email);
      await other.getByLabel("Password", { exact: true }).fill("correct-horse-battery");
      await other.getByRole("button", { name: "Sign in" }).click();
      await other.waitForURL(`${svc.base}/portal/sessions`);
    } finally {
      await browser?.close();
      await svc.close();
      await smtp.close();
    }
  },
});
