/// <reference lib="dom" />
/**
 * The API reference page in Chromium: the links of its operation index are targets of at least
 * 24 by 24 CSS px (WCAG 2.2 SC 2.5.8) on a wide and a narrow screen, and its "Try it" form sends
 * a header parameter (If-None-Match) as a header. One service and browser for the file.
 */
import assert from "node:assert/strict";
import type { Browser } from "playwright-core";
import { launchChromium } from "../helpers/browser.ts";
import { pglite } from "../helpers/db.ts";
import { type HttpTestService, startHttpService } from "../helpers/http_service.ts";
import { createTestApp, launchOk } from "../helpers/launch.ts";
import { launchPayload } from "../helpers/payload.ts";
import { sharedFixture } from "../helpers/shared.ts";

const opts = { sanitizeOps: false, sanitizeResources: false };
const MIN_TARGET_PX = 24;

const fixture = sharedFixture<{ svc: HttpTestService; browser: Browser }>(async () => ({
  svc: await startHttpService(pglite),
  browser: await launchChromium(),
}), async (f) => {
  await f.browser.close();
  await f.svc.close();
});

for (const width of [1280, 360]) {
  Deno.test(
    `API reference: every operation index link is a 24 px target at ${width} px`,
    opts,
    async () => {
      const { svc, browser } = await fixture();
      const page = await browser.newPage({ viewport: { width, height: 900 } });
      try {
        await page.goto(`${svc.base}/api/v1/docs`);
        const boxes = await page.evaluate(() =>
          [...document.querySelectorAll<HTMLAnchorElement>("nav a")].map((a) => {
            const box = a.getBoundingClientRect();
            return { text: a.textContent?.trim() ?? "", width: box.width, height: box.height };
          })
        );
        assert.ok(boxes.length > 40, `the index lists the operations (${boxes.length} links)`);
        const small = boxes
          .filter((b) => b.width < MIN_TARGET_PX || b.height < MIN_TARGET_PX)
          .map((b) => `"${b.text}" ${b.width.toFixed(1)}x${b.height.toFixed(1)}`);
        assert.deepEqual(small, [], `targets under ${MIN_TARGET_PX} px`);
      } finally {
        await page.close();
      }
    },
  );
}

Deno.test("API reference: Try it sends a header parameter as a header", opts, async () => {
  const { svc, browser } = await fixture();
  const token = await svc.adminToken();
  const app = await createTestApp(svc, token, "docs-crm");
  const { customerId } = await launchOk(svc, app, launchPayload());
  const first = await svc.api("GET", `/api/v1/customers/${customerId}`, token);
  await first.body?.cancel();
  const etag = first.headers.get("ETag")!;
  const page = await browser.newPage();
  try {
    await page.goto(`${svc.base}/api/v1/docs`);
    await page.fill("#auth input[name=token]", token);
    const form = page.locator('form.try[data-method="GET"][data-path="/customers/{id}"]');
    await form.locator("input[name=id]").fill(String(customerId));
    await form.locator('input[name="If-None-Match"]').fill(etag);
    await form.locator("button[type=submit]").click();
    const output = form.locator("output");
    await output.filter({ hasText: /^\d{3} / }).waitFor();
    assert.match(await output.textContent() ?? "", /^304 /, "the ETag went as If-None-Match");
  } finally {
    await page.close();
  }
});
