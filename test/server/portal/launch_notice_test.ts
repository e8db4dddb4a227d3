/** The landing page tells the agent what the launch ignored or repaired that matters to them. */
import assert from "node:assert/strict";
import { pglite } from "../../helpers/db.ts";
import { startTestService } from "../../helpers/service.ts";
import { createTestApp, signLaunch } from "../../helpers/launch.ts";
import { launchPayload } from "../../helpers/payload.ts";

Deno.test({
  name: "portal: a launch's ignored path filter and repair show as a dismissible notice",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const svc = await startTestService(pglite);
    try {
      const app = await createTestApp(svc, await svc.adminToken(), "crm");
      const land = async (signed: string) => {
        const res = await svc.request("/portal/api/auth/app/crm", {
          method: "POST",
          headers: { Accept: "text/html" },
          body: new URLSearchParams({ signed_request: signed }),
        });
        assert.equal(res.status, 303, await res.text());
        const url = new URL(res.headers.get("Location")!);
        const pair = res.headers.get("Set-Cookie")!.split("; ")[0];
        let page = await svc.request(url.pathname + url.search, { headers: { Cookie: pair } });
        // paths.remote with no search lands in the remote view (rule 2): one more redirect.
        if (page.status === 303) {
          const next = new URL(page.headers.get("Location")!, "http://portal.test");
          page = await svc.request(next.pathname + next.search, { headers: { Cookie: pair } });
        }
        return { html: await page.text(), url, pair };
      };
      // A path filter the contract does not know, and '+' sent as spaces (repaired).
      const p = launchPayload({
        contactId: "C1",
        contactEmail: "c1@example.org",
        paths: { remote: true, category: "printers" },
        AccountId: "0015e00000ABCDE",
      });
      let signed = await signLaunch(p, app.apiKey);
      while (!signed.includes("+")) signed = await signLaunch(p, app.apiKey);
      const { html, url, pair } = await land(signed.replaceAll("+", " "));
      const notice = /<dialog open class="notice launch-notice"[^]*?<\/dialog>/.exec(html)?.[0];
      assert.ok(notice, "the notice");
      assert.match(notice, /context\.environment\.parameters\.paths\.category/);
      assert.match(notice, /signed_request<\/code>: signed_request was repaired/);
      assert.doesNotMatch(notice, /AccountId/, "other ignored fields are the host's business");
      assert.match(notice, /<form method="dialog"><button type="submit">Dismiss<\/button>/);
      // Other pages of the login carry no notice; a launch without such warnings neither.
      const list = await svc.request("/portal/sessions", { headers: { Cookie: pair } });
      assert.doesNotMatch(await list.text(), /launch-notice/);
      assert.ok(url.pathname.startsWith("/portal/sessions/"));
      const clean = await land(
        await signLaunch(launchPayload({ contactId: "C2", contactEmail: "c2@x.org" }), app.apiKey),
      );
      assert.doesNotMatch(clean.html, /launch-notice/);
    } finally {
      await svc.close();
    }
  },
});
