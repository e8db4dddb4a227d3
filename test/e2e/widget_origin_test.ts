/// <reference lib="dom" />
/**
 * `<portal-launcher>` on a host page the app does not allow: a frame that never reports ready
 * fires `frame_blocked`, a dry run refused by CORS `origin_not_allowed`; both name the origin to
 * add. A portal that is down stays `portal_unreachable`.
 */
import assert from "node:assert/strict";
import type { Browser, Page } from "playwright-core";
import { createSignHandler } from "../../widget/signer/mod.ts";
import { launchChromium } from "../helpers/browser.ts";
import { pglite } from "../helpers/db.ts";
import { startHttpService } from "../helpers/http_service.ts";
import { createTestApp } from "../helpers/launch.ts";
import { freePort } from "../helpers/process.ts";
import { ensureWidgetBuilt } from "../helpers/widget.ts";

const ALLOWED = [
  "referenceNumber",
  "contactId",
  "contactFirstName",
  "contactLastName",
  "contactEmail",
  "contactPhone",
];
const PARAMETERS = JSON.stringify({
  referenceNumber: "CASE42",
  contactId: "C42",
  contactFirstName: "Zoe",
  contactLastName: "Brien",
  contactEmail: "zoe@example.org",
  contactPhone: "5550001111",
});

Deno.test({
  name: "<portal-launcher> in Chromium: frame_blocked and origin_not_allowed name the origin",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn(t) {
    await ensureWidgetBuilt();
    const svc = await startHttpService(pglite, {}, "localhost");
    let browser: Browser | undefined;
    let host: Deno.HttpServer<Deno.NetAddr> | undefined;
    try {
      const admin = await svc.adminToken();
      // The app allows another site only: this host page's origin is not among its origins.
      const app = await createTestApp(svc, admin, "crm", {
        frameAncestors: ["https://elsewhere.example"],
      });
      const sign = createSignHandler({
        portalUrl: `${svc.base}/portal`,
        appName: "crm",
        apiKey: app.apiKey,
        user: () => ({ id: "agent7", email: "ada@example.com", first_name: "Ada", last_name: "L" }),
        allow: ALLOWED,
      });
      // A portal that is down: a port nothing listens on (the signer answers without asking it).
      const deadPort = freePort();
      const down = () =>
        Response.json({
          action: `http://127.0.0.1:${deadPort}/portal/api/auth/app/crm`,
          signedRequest: "c2lnbmF0dXJl.e30=",
        });
      host = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (req) => {
        const path = new URL(req.url).pathname;
        if (path === "/sign") return sign(req);
        if (path === "/sign-down") return down();
        return new Response(hostPage(svc.base), { headers: { "Content-Type": "text/html" } });
      });
      const hostOrigin = `http://127.0.0.1:${host.addr.port}`;
      browser = await launchChromium();
      const context = await browser.newContext();
      const openHost = async (): Promise<Page> => {
        const page = await context.newPage();
        await page.goto(`${hostOrigin}/`);
        await page.waitForFunction(() => customElements.get("portal-launcher"));
        return page;
      };
      const errorOf = (page: Page) =>
        page.waitForFunction(() =>
          (globalThis as unknown as { launchErrors: unknown[] }).launchErrors[0]
        ).then((h) => h.jsonValue() as Promise<Record<string, unknown>>);
      const advice = [{
        path: "origin",
        message: `Add ${hostOrigin} to the app's allowed origins`,
      }];

      await t.step("a frame that never reports ready: frame_blocked", async () => {
        const page = await openHost();
        const started = Date.now();
        await page.click("#framed button");
        const detail = await errorOf(page);
        assert.ok(Date.now() - started >= 1500, "after frame-timeout");
        assert.equal(detail.code, "frame_blocked", JSON.stringify(detail));
        assert.deepEqual(detail.errors, advice);
        const shown = await page.locator("#framed [role=alert]").textContent() ?? "";
        assert.match(shown, new RegExp(`Add ${hostOrigin.replaceAll(".", "\\.")} to the app`));
        await page.close();
      });

      await t.step("a dry run refused by CORS: origin_not_allowed", async () => {
        const page = await openHost();
        await page.click("#checked button");
        const detail = await errorOf(page);
        assert.equal(detail.code, "origin_not_allowed", JSON.stringify(detail));
        assert.deepEqual(detail.errors, advice);
        assert.match(await page.locator("#checked [role=alert]").textContent() ?? "", /allowed/);
        await page.close();
      });

      await t.step("a portal that is down: portal_unreachable", async () => {
        const page = await openHost();
        await page.click("#down button");
        const detail = await errorOf(page);
        assert.equal(detail.code, "portal_unreachable", JSON.stringify(detail));
        await page.close();
      });
    } finally {
      await browser?.close();
      await host?.shutdown();
      await svc.close();
    }
  },
});

function hostPage(portal: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Mock CRM</title>
<script type="module" src="${portal}/portal/widget/portal-launcher.js"></script>
<script>
  globalThis.launchErrors = [];
  document.addEventListener("portal-launch-error", (e) => launchErrors.push(e.detail));
</script></head><body>
<portal-launcher id="framed" sign-url="/sign" target="iframe" frame-timeout="1500"
  parameters='${PARAMETERS}'></portal-launcher>
<portal-launcher id="checked" sign-url="/sign" target="iframe" validate
  parameters='${PARAMETERS}'></portal-launcher>
<portal-launcher id="down" sign-url="/sign-down" target="iframe" validate
  parameters='${PARAMETERS}'></portal-launcher>
</body></html>`;
}
