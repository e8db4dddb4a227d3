/// <reference lib="dom" />
import assert from "node:assert/strict";
import type { Browser, Page } from "playwright-core";
import { createSignHandler } from "../../widget/signer/mod.ts";
import { validateLaunchPayload } from "../../widget/signer/validate.ts";
import { launchChromium, OUTPUT_DIR } from "../helpers/browser.ts";
import { pglite } from "../helpers/db.ts";
import { startHttpService } from "../helpers/http_service.ts";
import { createTestApp } from "../helpers/launch.ts";
import { ensureWidgetBuilt } from "../helpers/widget.ts";

const ALLOWED = [
  "target",
  "sessionId",
  "referenceNumber",
  "contactId",
  "contactFirstName",
  "contactLastName",
  "contactEmail",
  "contactPhone",
  "customFields",
];

const CONTACT = {
  referenceNumber: "CASE42",
  contactId: "C42",
  contactFirstName: "Zoë",
  contactLastName: "O'Brien",
  contactEmail: "zoe@example.org",
  contactPhone: "5550001111",
};

Deno.test({
  name: "<portal-launcher> in Chromium: tab, self and iframe across sites, errors, events",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn(t) {
    await ensureWidgetBuilt();
    // The portal on http://localhost:<port>, the host on http://127.0.0.1:<port>: two sites.
    const svc = await startHttpService(pglite, {}, "localhost");
    let browser: Browser | undefined;
    let host: Deno.HttpServer<Deno.NetAddr> | undefined;
    try {
      const admin = await svc.adminToken();
      let hostOrigin = "";
      const sign = (apiKey: string) =>
        createSignHandler({
          portalUrl: `${svc.base}/portal`,
          appName: "crm",
          apiKey,
          user: () => ({
            id: "agent7",
            email: "ada@example.com",
            first_name: "Ada",
            last_name: "Lovelace",
          }),
          allow: ALLOWED,
          // The schema locally: what only the database knows (an unknown session) reaches the
          // portal, whose answer the element must show.
          validate: validateLaunchPayload,
        });
      let signHandler: (req: Request) => Promise<Response> = () =>
        Promise.resolve(new Response("not ready", { status: 503 }));
      host = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (req) => {
        const url = new URL(req.url);
        if (url.pathname === "/sign") return signHandler(req);
        if (url.pathname === "/sign-down") {
          return Response.json({ message: "The CRM cannot sign right now" }, { status: 502 });
        }
        return new Response(hostPage(svc.base), { headers: { "Content-Type": "text/html" } });
      });
      hostOrigin = `http://127.0.0.1:${host.addr.port}`;
      const app = await createTestApp(svc, admin, "crm", { frameAncestors: [hostOrigin] });
      signHandler = sign(app.apiKey);
      browser = await launchChromium();
      const context = await browser.newContext({ viewport: { width: 1100, height: 900 } });

      const openHost = async (): Promise<Page> => {
        const page = await context.newPage();
        await page.goto(`${hostOrigin}/`);
        await page.waitForFunction(() => customElements.get("portal-launcher"));
        return page;
      };
      const events = (page: Page) =>
        page.evaluate(() => (globalThis as unknown as { launchEvents: unknown[] }).launchEvents);
      const setParams = (page: Page, id: string, params: Record<string, unknown>) =>
        page.evaluate(([id, params]) => {
          (document.getElementById(id as string) as unknown as { parameters: unknown })
            .parameters = params;
        }, [id, params] as const);
      const launches = async () =>
        Number((await svc.db.sql`select count(*) from launches where outcome = 'ok'`)[0].count);

      await t.step(
        "iframe: a third-party frame lands logged in on the session screen",
        async () => {
          const page = await openHost();
          await setParams(page, "frame", { ...CONTACT, target: "embedded" });
          await page.click("#frame button");
          const frame = page.frameLocator("#frame iframe");
          await frame.locator("main[data-layout=embedded]").waitFor();
          assert.match(await frame.locator("h1").textContent() ?? "", /Session \d+/);
          assert.match(await frame.locator("[data-testid=customer]").textContent() ?? "", /Zoë/);
          const fired = await events(page) as { type: string; detail: Record<string, unknown> }[];
          assert.deepEqual(fired.map((e) => e.type), ["portal-launch-start", "portal-launched"]);
          assert.equal(fired[0].detail.target, "iframe");
          assert.deepEqual(fired[1].detail, {
            target: "iframe",
            action: `${svc.base}/portal/api/auth/app/crm`,
          });
          await page.screenshot({ path: `${OUTPUT_DIR}widget-iframe.png` });
          await page.close();
        },
      );

      await t.step("tab: a new tab opens and lands on the session screen", async () => {
        const page = await openHost();
        await setParams(page, "tab", CONTACT);
        const [popup] = await Promise.all([
          context.waitForEvent("page"),
          page.click("#tab button"),
        ]);
        await popup.waitForURL(/localhost:\d+\/portal\/sessions\/\d+\?launch=\d+/);
        await popup.locator("main[data-layout=standard]").waitFor();
        await popup.close();
        await page.close();
      });

      await t.step("self: the host page itself navigates to the portal", async () => {
        const page = await openHost();
        await setParams(page, "self", CONTACT);
        await Promise.all([page.waitForURL(/\/portal\/sessions\/\d+/), page.click("#self button")]);
        await page.locator("main[data-layout=standard]").waitFor();
        await page.close();
      });

      await t.step("keyboard activation launches; a double click launches once", async () => {
        const page = await openHost();
        await setParams(page, "frame", CONTACT);
        let before = await launches();
        await page.focus("#frame button");
        await page.keyboard.press("Enter");
        await page.frameLocator("#frame iframe").locator("main").waitFor();
        assert.equal(await launches(), before + 1);
        await page.close();
        const again = await openHost();
        await setParams(again, "frame", CONTACT);
        before = await launches();
        await again.dblclick("#frame button");
        await again.frameLocator("#frame iframe").locator("main").waitFor();
        await again.waitForFunction(() =>
          !(document.getElementById("frame") as unknown as { busy: boolean }).busy
        );
        assert.equal(await launches(), before + 1, "one launch for a double click");
        await again.close();
      });

      await t.step("sign-url failure shows the host's message inline", async () => {
        const page = await openHost();
        await page.evaluate(() =>
          document.getElementById("frame")!.setAttribute("sign-url", "/sign-down")
        );
        await page.click("#frame button");
        const alert = page.locator("#frame [role=alert]");
        await alert.waitFor();
        assert.match(await alert.textContent() ?? "", /The CRM cannot sign right now/);
        const fired = await events(page) as { type: string; detail: Record<string, unknown> }[];
        assert.deepEqual(fired.at(-1), {
          type: "portal-launch-error",
          detail: {
            status: 502,
            code: null,
            message: "The CRM cannot sign right now",
            errors: [],
          },
        });
        await page.evaluate(() =>
          document.getElementById("frame")!.setAttribute("sign-url", "http://127.0.0.1:9/sign")
        );
        await page.click("#frame button");
        await page.waitForFunction(() =>
          /Cannot reach/.test(
            document.getElementById("frame")!.shadowRoot!.querySelector("[role=alert]")
              ?.textContent ?? "",
          )
        );
        await page.close();
      });

      await t.step("signer validation errors show field by field", async () => {
        const page = await openHost();
        await setParams(page, "frame", { ...CONTACT, contactEmail: "not-an-email", color: "red" });
        await page.click("#frame button");
        await page.locator("#frame [role=alert] li").first().waitFor();
        const items = await page.locator("#frame [role=alert] li").allTextContents();
        assert.deepEqual(items, [
          "parameters.color: not allowed from the page (add it to allow, or set it on the server)",
        ]);
        await setParams(page, "frame", { ...CONTACT, contactEmail: "not-an-email" });
        await page.click("#frame button");
        await page.waitForFunction(() =>
          /contactEmail/.test(
            document.getElementById("frame")!.shadowRoot!.querySelector("[role=alert]")
              ?.textContent ?? "",
          )
        );
        await page.close();
      });

      await t.step("validate: a dry-run failure stops before navigating", async () => {
        const page = await openHost();
        const before = await launches();
        await page.evaluate(() => document.getElementById("frame")!.setAttribute("validate", ""));
        await setParams(page, "frame", { ...CONTACT, customFields: { color: "red" } });
        await page.click("#frame button");
        const alert = page.locator("#frame [role=alert]");
        await alert.waitFor();
        assert.match(await alert.textContent() ?? "", /Custom fields not configured: color/);
        assert.match(
          await page.locator("#frame [role=alert] li").first().textContent() ?? "",
          /customFields\.color/,
        );
        assert.equal(await page.locator("#frame iframe:not([hidden])").count(), 0);
        assert.equal(await launches(), before, "nothing launched");
        await page.close();
      });

      await t.step("unknown session: the portal's postMessage error shows inline", async () => {
        const page = await openHost();
        await setParams(page, "frame", { ...CONTACT, sessionId: 999999 });
        await page.click("#frame button");
        await page.waitForFunction(() =>
          /Session 999999 not found/.test(
            document.getElementById("frame")!.shadowRoot!.querySelector("[role=alert]")
              ?.textContent ?? "",
          )
        );
        const fired = await events(page) as { type: string; detail: Record<string, unknown> }[];
        assert.deepEqual(fired.at(-1), {
          type: "portal-launch-error",
          detail: {
            status: 404,
            code: "session_not_found",
            message: "Session 999999 not found",
            errors: [],
          },
        });
        // A message from another origin is ignored.
        await page.evaluate(() =>
          globalThis.postMessage({
            type: "portal-launcher:error",
            status: 500,
            message: "forged",
            errors: [],
          }, "*")
        );
        await page.waitForTimeout(100);
        assert.doesNotMatch(
          await page.locator("#frame [role=alert]").textContent() ?? "",
          /forged/,
        );
        await page.close();
      });

      await t.step(
        "unknown session in a new tab: the error reaches the opener inline",
        async () => {
          const page = await openHost();
          await setParams(page, "tab", { ...CONTACT, sessionId: 999998 });
          const [popup] = await Promise.all([
            context.waitForEvent("page"),
            page.click("#tab button"),
          ]);
          await page.waitForFunction(() =>
            /Session 999998 not found/.test(
              document.getElementById("tab")!.shadowRoot!.querySelector("[role=alert]")
                ?.textContent ?? "",
            )
          );
          await popup.close();
          await page.close();
        },
      );

      await t.step("a blocked popup is reported inline", async () => {
        const page = await context.newPage();
        await page.addInitScript(() => {
          globalThis.open = () => null;
        });
        await page.goto(`${hostOrigin}/`);
        await page.waitForFunction(() => customElements.get("portal-launcher"));
        await setParams(page, "tab", CONTACT);
        await page.click("#tab button");
        const alert = page.locator("#tab [role=alert]");
        await alert.waitFor();
        assert.match(await alert.textContent() ?? "", /blocked the new tab/);
        await page.close();
      });

      await t.step("properties, attributes, slot and parts", async () => {
        const page = await openHost();
        const result = await page.evaluate(() => {
          const el = document.createElement("portal-launcher") as HTMLElement & {
            parameters: unknown;
            target: string;
            label: string;
            disabled: boolean;
            updateComplete: Promise<unknown>;
          };
          el.setAttribute("parameters", '{"contactId":"C1"}');
          el.setAttribute("label", "Open case");
          document.body.append(el);
          return el.updateComplete.then(() => {
            const button = el.shadowRoot!.querySelector("button")!;
            const out = {
              parameters: el.parameters,
              target: el.target,
              part: button.getAttribute("part"),
              text: button.textContent!.trim(),
              bad: "",
              disabled: false,
            };
            el.setAttribute("parameters", "not json");
            el.disabled = true;
            return el.updateComplete.then(() => {
              out.disabled = button.disabled && el.hasAttribute("disabled");
              el.setAttribute("target", "popup");
              return el.updateComplete.then(() => {
                out.bad = el.shadowRoot!.querySelector("[part=error]")?.textContent ?? "";
                return { ...out, after: el.parameters };
              });
            });
          });
        });
        assert.deepEqual(result.parameters, { contactId: "C1" });
        assert.equal(result.target, "tab", "default target");
        assert.equal(result.part, "button");
        assert.equal(result.text, "Open case");
        assert.deepEqual(result.after, {}, "invalid JSON is an empty object");
        assert.equal(result.disabled, true);
        assert.match(result.bad, /target must be one of tab, self, iframe/);
        const slotted = await page.locator("#self").evaluate((el) =>
          (el.shadowRoot!.querySelector("slot") as HTMLSlotElement).assignedNodes()
            .map((n) => n.textContent).join("")
        );
        assert.equal(slotted, "Open here");
        await page.close();
      });

      await t.step(
        "portal-url: a warm-up frame, and the portal's frame made hidden before the click",
        async () => {
          const page = await openHost();
          const warmUrl = `${svc.base}/portal/widget/warm`;
          const frames = () =>
            page.evaluate(() =>
              [...document.getElementById("warm")!.shadowRoot!.querySelectorAll("iframe")].map((
                f,
              ) => ({
                part: f.getAttribute("part"),
                src: f.getAttribute("src"),
                hidden: f.hidden,
                ariaHidden: f.getAttribute("aria-hidden"),
                marked: f.dataset.mark === "before-click",
              }))
            );
          const waiting = {
            part: null,
            src: null,
            hidden: true,
            ariaHidden: "true",
            marked: false,
          };
          const warm = {
            part: null,
            src: warmUrl,
            hidden: true,
            ariaHidden: "true",
            marked: false,
          };
          await page.waitForFunction(() =>
            document.getElementById("warm")!.shadowRoot!.querySelectorAll("iframe").length === 2
          );
          assert.deepEqual(await frames(), [waiting, warm]);
          for (let i = 0; !page.frames().some((f) => f.url() === warmUrl); i++) {
            assert.ok(i < 250, "the warm-up page did not load in its frame");
            await page.waitForTimeout(20);
          }
          // The launch goes into the frame made before the click, which is then shown; its blank
          // page is replaced, so the host page's history does not grow (Back leaves the page).
          await page.evaluate(() => {
            document.getElementById("warm")!.shadowRoot!.querySelector("iframe")!.dataset.mark =
              "before-click";
          });
          const historyLength = () => page.evaluate(() => history.length);
          const before = await historyLength();
          await setParams(page, "warm", { ...CONTACT, target: "embedded" });
          await page.click("#warm button");
          const heading = page.frameLocator("#warm iframe[part=frame]").locator("h1", {
            hasText: /Session \d+/,
          });
          await heading.waitFor();
          const shown = { part: "frame", src: null, hidden: false, ariaHidden: null, marked: true };
          assert.deepEqual(await frames(), [shown, warm]);
          assert.equal(await historyLength(), before);
          // A portal-url set while the session shows moves only the warm-up frame.
          const element = (action: string, url = "") =>
            page.evaluate(([action, url]) => {
              const el = document.getElementById("warm") as unknown as HTMLElement & {
                portalUrl: string;
                target: string;
                close(): void;
              };
              if (action === "portalUrl") el.portalUrl = url;
              if (action === "close") el.close();
              if (action === "move") document.body.append(el);
              if (action === "tab" || action === "iframe") el.target = action;
            }, [action, url]);
          await element("portalUrl", `${svc.base}/elsewhere`);
          await page.waitForFunction(() =>
            document.getElementById("warm")!.shadowRoot!.querySelector("iframe.warm")!
              .getAttribute("src")!.includes("/elsewhere/")
          );
          assert.equal(await heading.isVisible(), true);
          // close(), a move in the page, or another target: the shown frame goes, a blank one waits.
          for (const change of ["close", "move", "tab"]) {
            await element(change);
            await element("iframe");
            await page.waitForFunction(() =>
              document.getElementById("warm")!.shadowRoot!.querySelector("iframe")?.hidden === true
            );
            assert.deepEqual((await frames())[0], waiting, change);
            assert.equal(await page.locator("#warm").getAttribute("status"), "idle", change);
            await page.click("#warm button");
            await heading.waitFor();
          }
          // Only http(s) URLs are loaded: no warm-up frame, no waiting frame.
          await element("close");
          await element("portalUrl", "javascript:alert(1)//");
          await page.waitForFunction(
            () => !document.getElementById("warm")!.shadowRoot!.querySelector("iframe"),
          );
          await page.close();
          const res = await fetch(warmUrl);
          const body = await res.text();
          assert.equal(res.status, 200);
          assert.match(
            res.headers.get("Content-Security-Policy")!,
            /default-src 'none'.*frame-ancestors \*/,
          );
          assert.match(body, /<link rel="stylesheet" href="\/portal\/assets\/portal\.css\?v=/);
          assert.ok(!/<script/i.test(body), "the warm-up page runs nothing");
        },
      );

      await t.step("the module is cached: ETag, 304, CORS", async () => {
        const url = `${svc.base}/portal/widget/portal-launcher.js`;
        const res = await fetch(url);
        const etag = res.headers.get("ETag")!;
        assert.equal(res.headers.get("Access-Control-Allow-Origin"), "*");
        assert.match(res.headers.get("Cache-Control")!, /public, max-age=\d+/);
        assert.match(res.headers.get("Content-Type")!, /javascript/);
        const text = await res.text();
        assert.ok(!/from\s*["']lit/.test(text), "Lit is bundled, not imported");
        const gzipped = await new Response(
          new Blob([text]).stream().pipeThrough(new CompressionStream("gzip")),
        ).arrayBuffer();
        assert.ok(gzipped.byteLength <= 12 * 1024, `${gzipped.byteLength} bytes gzipped`);
        const again = await fetch(url, { headers: { "If-None-Match": etag } });
        assert.equal(again.status, 304);
        await again.body?.cancel();
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
  globalThis.launchEvents = [];
  for (const type of ["portal-launch-start", "portal-launched", "portal-launch-error"]) {
    document.addEventListener(type, (e) => launchEvents.push({ type, detail: e.detail }));
  }
</script></head><body>
<h1>Case CASE42</h1>
<portal-launcher id="tab" sign-url="/sign"></portal-launcher>
<portal-launcher id="self" sign-url="/sign" target="self">Open here</portal-launcher>
<portal-launcher id="frame" sign-url="/sign" target="iframe" label="Open in frame"
  style="--portal-launcher-frame-height: 500px"></portal-launcher>
<portal-launcher id="warm" sign-url="/sign" target="iframe" portal-url="${portal}/portal"
  label="Open warmed up"></portal-launcher>
</body></html>`;
}
