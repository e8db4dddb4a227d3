/// <reference lib="dom" />
import assert from "node:assert/strict";
import { CASES, demoApp } from "../../widget/demo/app.ts";
import { launchChromium } from "../helpers/browser.ts";
import { pglite } from "../helpers/db.ts";
import { startHttpService } from "../helpers/http_service.ts";
import { createTestApp } from "../helpers/launch.ts";
import { ensureWidgetBuilt } from "../helpers/widget.ts";

Deno.test({
  name: "demo host app: a case page launches the portal in its iframe and new tab",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    await ensureWidgetBuilt();
    const svc = await startHttpService(pglite, {}, "localhost");
    const admin = await svc.adminToken();
    await svc.api("POST", "/api/v1/admin/custom-fields", admin, { name: "priority" });
    let handler: (req: Request) => Promise<Response> = () => Promise.resolve(new Response());
    const crm = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (r) => handler(r));
    const crmOrigin = `http://127.0.0.1:${crm.addr.port}`;
    const app = await createTestApp(svc, admin, "demo", { frameAncestors: [crmOrigin] });
    handler = demoApp({ portalUrl: `${svc.base}/portal`, appName: "demo", apiKey: app.apiKey });
    const browser = await launchChromium();
    try {
      const page = await browser.newPage();
      await page.goto(`${crmOrigin}/`);
      assert.equal(await page.locator("tbody tr").count(), CASES.length);
      await page.click(`a[href="/cases/${CASES[1].id}"]`);
      await page.waitForFunction(() => customElements.get("portal-launcher"));
      await page.click("#launch-iframe button");
      const frame = page.frameLocator("#launch-iframe iframe");
      await frame.locator("main[data-layout=embedded]").waitFor();
      assert.match(await frame.locator("[data-testid=customer]").textContent() ?? "", /Zoë/);
      const [tab] = await Promise.all([
        page.context().waitForEvent("page"),
        page.click("#launch-tab button"),
      ]);
      await tab.waitForURL(/\/portal\/sessions\/\d+/);
      const [s] = await svc.db.sql`select reference_id from sessions order by id desc limit 1`;
      assert.equal(s.referenceId, CASES[1].id);
    } finally {
      await browser.close();
      await crm.shutdown();
      await svc.close();
    }
  },
});
