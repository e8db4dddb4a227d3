/// <reference lib="dom" />
import assert from "node:assert/strict";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { hashPassword } from "../../server/crypto/hashing.ts";
import { launchChromium, OUTPUT_DIR, submitSignIn } from "../helpers/browser.ts";
import { pglite } from "../helpers/db.ts";
import { startHttpService } from "../helpers/http_service.ts";
import { createTestApp, signLaunch } from "../helpers/launch.ts";
import { type Json, launchPayload } from "../helpers/payload.ts";

Deno.test({
  name: "portal in Chromium: flavors, guided-path rules, controls, language, sign-in",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn(t) {
    const svc = await startHttpService(pglite);
    let browser: Browser | undefined;
    try {
      browser = await launchChromium();
      const admin = await svc.adminToken();
      const app = await createTestApp(svc, admin);
      await svc.api("POST", "/api/v1/admin/custom-fields", admin, {
        name: "priority",
        label: "Priority level",
      });
      const cat = async (name: string) =>
        (await (await svc.api("POST", "/api/v1/admin/path-categories", admin, { name })).json())
          .uid as string;
      const printers = await cat("Printers");
      const network = await cat("Network");
      const addPath = async (title: string, category: string, tags: string[], extra = {}) =>
        (await (await svc.api("POST", "/api/v1/admin/paths", admin, {
          title,
          categoryUid: category,
          tags,
          published: true,
          steps: [{ title: `${title}: check`, body: "Look at it" }, {
            title: `${title}: fix`,
            body: "Fix it",
          }],
          ...extra,
        })).json()).uid as string;
      await addPath("Printer offline", printers, ["printer"], {
        translations: {
          fr: {
            title: "Imprimante hors ligne",
            steps: [{ title: "Vérifier", body: "Regardez" }, { title: "Réparer", body: "Réparez" }],
          },
        },
      });
      await addPath("Paper jam", printers, ["paper"]);
      const vpn = await addPath("VPN setup", network, ["vpn"]);
      const wifi = await addPath("Wi-Fi drops", network, ["wifi"]);
      await svc.api("POST", "/api/v1/admin/paths", admin, {
        title: "Draft path",
        categoryUid: network,
        published: false,
      });
      const published = ["Paper jam", "Printer offline", "VPN setup", "Wi-Fi drops"];

      const context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
      const page = await context.newPage();

      /** Submits a real signed form POST from a host page, as a host app would. */
      const launch = async (p: Page, params: Json = {}, user: Json = {}): Promise<number> => {
        const signed = await signLaunch(launchPayload(params, user), app.apiKey);
        await p.goto(`${svc.base}/healthz`); // a host page that is not the portal
        await p.setContent(
          `<form method="post" action="${svc.base}/portal/api/auth/app/crm">` +
            `<input name="signed_request" value="${signed}"></form>`,
        );
        await Promise.all([
          p.waitForURL(/\/portal\/sessions\/\d+/),
          p.evaluate(() => document.forms[0].submit()),
        ]);
        return Number(new URL(p.url()).pathname.split("/")[3]);
      };
      const listed = async (p: Page) =>
        (await p.locator("[data-testid=path-list] li > span").allTextContents()).sort();
      const paths = (search: Json[], extra: Json = {}) => ({
        paths: { search, ...extra },
      });
      const entry = (type: string, values: string[]) => ({
        search_type: type,
        search_values: values,
      });
      const events = async (sessionId: number) =>
        (await svc.db.sql`select kind, agent_id, detail from session_events
          where session_id = ${sessionId} order by id`).map((r) => r.kind);

      await Deno.mkdir(OUTPUT_DIR, { recursive: true });

      await t.step("standard flavor: portal chrome, session, customer, devices", async () => {
        const id = await launch(page, {
          customFields: { priority: "high" },
          contactMobile: "5551112222",
          deviceComputer: {
            name: "PC-7",
            os: "Windows",
            serial: "S7",
            av_prods: [{ company: "Acme", name: "Shield", version: "9.1", latest: true }],
          },
        });
        assert.equal(await page.getAttribute("main", "data-layout"), "standard");
        assert.equal(await page.getAttribute("html", "lang"), "en");
        assert.match(await page.textContent("header") ?? "", /Ada Lovelace/);
        assert.equal(await page.locator("nav a", { hasText: "My sessions" }).count(), 1);
        assert.equal(await page.textContent("[data-testid=external-reference]"), "CASE00017");
        assert.equal(await page.textContent("[data-field=priority]"), "high");
        assert.match(await page.textContent("#info-h + dl") ?? "", /Priority level/);
        const customer = await page.textContent("[data-testid=customer]");
        for (const text of ["Grace Hopper", "grace@example.org", "5559876543", "5551112222"]) {
          assert.ok(customer!.includes(text), text);
        }
        assert.match(customer!, /C0099/, "external customer id shown when enabled");
        assert.equal(await page.locator("[data-testid=av-prods] tbody tr").count(), 1);
        assert.match(await page.textContent("[data-testid=av-prods]") ?? "", /Acme.*Shield.*9\.1/s);
        await page.screenshot({ path: `${OUTPUT_DIR}portal-standard.png`, fullPage: true });
        await page.click("nav a");
        await page.waitForURL(/\/portal\/sessions$/);
        assert.ok(await page.locator(`[data-testid=sessions] a[href$="/sessions/${id}"]`).count());
      });

      await t.step("field settings hide the external ids", async () => {
        await svc.api("PUT", "/api/v1/admin/field-settings", admin, {
          session: { externalSessionId: true },
          consumer: { externalCustomerId: true },
        });
        const id = await launch(page);
        await svc.db.sql`update field_settings set external_session_id = false,
          external_customer_id = false`;
        await page.goto(`${svc.base}/portal/sessions/${id}`);
        assert.equal(await page.locator("[data-testid=external-reference]").count(), 0);
        assert.doesNotMatch(await page.textContent("[data-testid=customer]") ?? "", /C0099/);
        await svc.db.sql`update field_settings set external_session_id = true,
          external_customer_id = true`;
      });

      await t.step("embedded flavor: compact, no chrome, fits 360 px", async () => {
        const small = await context.newPage();
        await small.setViewportSize({ width: 360, height: 640 });
        await launch(small, { target: "embedded" });
        assert.equal(await small.getAttribute("main", "data-layout"), "embedded");
        assert.equal(await small.locator("header").count(), 0);
        assert.equal(await small.locator("nav").count(), 0);
        const width = await small.evaluate(() => document.documentElement.scrollWidth);
        assert.ok(width <= 360, `no horizontal scroll at 360 px (scrollWidth ${width})`);
        await small.screenshot({ path: `${OUTPUT_DIR}portal-embedded.png`, fullPage: true });
        await small.close();
      });

      await t.step(
        "embedded flavor in a host iframe (frame-ancestors allows the app)",
        async () => {
          await svc.api("PATCH", "/api/v1/admin/apps/crm", admin, {
            frameAncestors: [svc.base],
          });
          const signed = await signLaunch(launchPayload({ target: "embedded" }), app.apiKey);
          const host = await context.newPage();
          await host.goto(`${svc.base}/healthz`);
          await host.setContent(
            `<iframe name="portal" style="width:360px;height:600px"></iframe>` +
              `<form target="portal" method="post" action="${svc.base}/portal/api/auth/app/crm">` +
              `<input name="signed_request" value="${signed}"></form>`,
          );
          await host.evaluate(() => document.forms[0].submit());
          const frame = host.frameLocator("iframe[name=portal]");
          await frame.locator("main[data-layout=embedded]").waitFor();
          assert.match(await frame.locator("h1").textContent() ?? "", /Session \d+/);
          await host.close();
        },
      );

      await t.step(
        "seesupport flavor: customer and devices first, visual support recorded",
        async () => {
          const id = await launch(page, {
            target: "seesupport",
            deviceMobile: { name: "Pixel", os: "Android", serial: "M1" },
          });
          assert.equal(await page.getAttribute("main", "data-layout"), "seesupport");
          const order = await page.evaluate(() =>
            [...document.querySelectorAll("main section h2")].map((h) => h.id)
          );
          assert.deepEqual(order.slice(0, 2), ["customer-h", "devices-h"]);
          await page.screenshot({ path: `${OUTPUT_DIR}portal-seesupport.png`, fullPage: true });
          await page.click("[data-testid=start-visual-support]");
          await page.waitForSelector(".notice");
          assert.match(await page.textContent(".notice") ?? "", /Visual support started/);
          assert.deepEqual(await events(id), ["visual_support_started"]);
        },
      );

      await t.step("paths: no paths object lists every published path", async () => {
        await launch(page);
        assert.deepEqual(await listed(page), published);
      });

      await t.step("paths rule 2: remote with no search lands in the remote view", async () => {
        const id = await launch(page, paths([], { remote: true }));
        await page.waitForSelector("[data-testid=remote-invite]");
        assert.match(await page.textContent("[data-testid=remote-view]") ?? "", /invitation ready/);
        await page.reload();
        assert.deepEqual(
          await events(id),
          ["remote_requested", "remote_invited"],
          "recorded once per launch",
        );
      });

      await t.step("paths rules 3 and 5: Start Remote Connection with remote only", async () => {
        const id = await launch(page, paths([entry("category_uid", [printers])], { remote: true }));
        for (const title of ["Paper jam", "Printer offline"]) {
          await page.click(`[data-testid=path-list] li:has-text("${title}") a`);
          assert.equal(await page.locator("[data-testid=start-remote]").count(), 1, title);
          await page.click("[data-testid=next-step]");
          await page.click("[data-testid=path-done]");
          await page.waitForSelector("[data-testid=path-list]");
        }
        await page.click(`[data-testid=path-list] li:has-text("Paper jam") a`);
        await page.click("[data-testid=start-remote] button");
        await page.waitForSelector("[data-testid=remote-invite]");
        assert.deepEqual(await events(id), ["remote_requested", "remote_invited"]);
        await launch(page, paths([entry("category_uid", [printers])], { remote: false }));
        await page.click(`[data-testid=path-list] li:has-text("Paper jam") a`);
        assert.equal(await page.locator("[data-testid=start-remote]").count(), 0);
      });

      await t.step("paths rule 6: category_uid alone lists the category", async () => {
        await launch(page, paths([entry("category_uid", [printers])]));
        assert.deepEqual(await listed(page), ["Paper jam", "Printer offline"]);
      });

      await t.step("paths rule 7: category_uid + path_uid", async () => {
        await launch(page, paths([entry("category_uid", [printers]), entry("path_uid", [vpn])]));
        assert.deepEqual(await listed(page), ["Paper jam", "Printer offline", "VPN setup"]);
      });

      await t.step("paths rule 8: category_uid + tag", async () => {
        await launch(page, paths([entry("category_uid", [printers]), entry("tag", ["wifi"])]));
        assert.deepEqual(await listed(page), ["Paper jam", "Printer offline", "Wi-Fi drops"]);
      });

      await t.step("paths rule 9: category_uid + full_text fills the search bar", async () => {
        await launch(page, paths([entry("category_uid", [printers]), entry("full_text", ["jam"])]));
        assert.equal(await page.inputValue("[data-testid=path-search]"), "jam");
        assert.deepEqual(await listed(page), ["Paper jam"]);
        await page.fill("[data-testid=path-search]", "");
        await page.press("[data-testid=path-search]", "Enter");
        await page.waitForURL(/q=/);
        assert.deepEqual(await listed(page), ["Paper jam", "Printer offline"]);
      });

      await t.step(
        "paths rule 10: a single path_uid launches it; Done records the run",
        async () => {
          const id = await launch(page, paths([entry("path_uid", [wifi])]));
          await page.waitForSelector("[data-testid=path-runner]");
          assert.equal(await page.textContent("#runner-h"), "Wi-Fi drops");
          assert.equal(await page.textContent("[data-testid=step-count]"), "Step 1 of 2");
          await page.keyboard.press("Tab");
          await page.click("[data-testid=next-step]");
          assert.equal(await page.textContent("[data-testid=step-title]"), "Wi-Fi drops: fix");
          await page.click("[data-testid=path-done]");
          await page.waitForSelector("[data-testid=path-runs]");
          const [run] = await svc.db.sql`select path_uid::text as uid from path_runs
          where session_id = ${id}`;
          assert.equal(run.uid, wifi);
          await page.reload();
          assert.equal(await page.locator("[data-testid=path-runner]").count(), 0, "runs once");
        },
      );

      await t.step(
        "paths rules 11 and 12: allPaths and Recently Used after the first run",
        async () => {
          await launch(page, paths([entry("category_uid", [network])], { allPaths: true }));
          assert.deepEqual(await listed(page), ["VPN setup", "Wi-Fi drops"]);
          assert.equal(await page.locator("[data-testid=recently-used]").count(), 0);
          await page.click(`[data-testid=path-list] li:has-text("VPN setup") a`);
          await page.click("[data-testid=next-step]");
          await page.click("[data-testid=path-done]");
          await page.waitForSelector("[data-testid=path-runs]");
          assert.deepEqual(await listed(page), published, "after the first path: everything");
          const recent = await page.locator("[data-testid=recently-used] li > span")
            .allTextContents();
          assert.equal(recent[0], "VPN setup", "the agent's latest run first");

          await launch(page, paths([entry("category_uid", [network])], { allPaths: false }));
          await page.click(`[data-testid=path-list] li:has-text("VPN setup") a`);
          await page.click("[data-testid=next-step]");
          await page.click("[data-testid=path-done]");
          await page.waitForSelector("[data-testid=path-runs]");
          assert.deepEqual(await listed(page), ["VPN setup", "Wi-Fi drops"], "still filtered");
          assert.equal(await page.locator("[data-testid=recently-used]").count(), 0);
        },
      );

      await t.step("status slider: a real change, seen through the REST API", async () => {
        const id = await launch(page);
        const sw = page.locator("[data-testid=status-switch]");
        assert.equal(await sw.getAttribute("aria-checked"), "true");
        await sw.click();
        await page.waitForSelector(".status-closed");
        const rest = await (await svc.api("GET", `/api/v1/sessions/${id}`, admin)).json();
        assert.equal(rest.status, "closed");
        assert.equal(await page.locator("[data-testid=assign-to-me]").count(), 0);
        await page.locator("[data-testid=status-switch]").click();
        await page.waitForSelector("[data-testid=status].status-open");
        assert.deepEqual(await events(id), ["status_changed", "status_changed"]);
      });

      await t.step("keyboard: Tab reaches the status switch and Enter uses it", async () => {
        const id = await launch(page);
        let focused = "";
        for (let i = 0; i < 20 && focused !== "status-switch"; i++) {
          await page.keyboard.press("Tab");
          focused = await page.evaluate(() =>
            document.activeElement?.getAttribute("data-testid") ?? ""
          );
        }
        assert.equal(focused, "status-switch");
        const outline = await page.evaluate(() =>
          getComputedStyle(document.activeElement!).outlineStyle
        );
        assert.notEqual(outline, "none", "focus is visible");
        await page.keyboard.press("Enter");
        await page.waitForSelector("[data-testid=status].status-closed");
        const [s] = await svc.db.sql`select status from sessions where id = ${id}`;
        assert.equal(s.status, "closed");
        const levels = await page.evaluate(() =>
          [...document.querySelectorAll("h1, h2, h3")].map((h) => Number(h.tagName[1]))
        );
        assert.equal(levels[0], 1);
        levels.forEach((level, i) => {
          if (i > 0) assert.ok(level <= levels[i - 1] + 1, `heading order ${levels.join(",")}`);
        });
      });

      await t.step("transfer and Assign To Me round trips", async () => {
        await launch(page, {}, { id: "bob1", email: "bob@example.com", first_name: "Bob" });
        const [bob] = await svc.db.sql`select id from users where external_id = 'bob1'`;
        const id = await launch(page);
        const [ada] = await svc.db.sql`select id from users where external_id = 'agent42'`;
        assert.equal(await page.locator("[data-testid=assign-to-me]").count(), 0, "already mine");
        await page.selectOption("[data-testid=transfer] select", String(bob.id));
        await page.click("[data-testid=transfer] button");
        await page.waitForSelector("[data-testid=assign-to-me]");
        let [s] = await svc.db.sql`select assignee_id from sessions where id = ${id}`;
        assert.equal(s.assigneeId, bob.id);
        await page.click("[data-testid=assign-to-me]");
        await page.waitForSelector("[data-testid=controls]");
        [s] = await svc.db.sql`select assignee_id from sessions where id = ${id}`;
        assert.equal(s.assigneeId, ada.id);
        const rows = await svc.db.sql`select kind, detail from session_events
          where session_id = ${id} order by id`;
        assert.deepEqual(rows.map((r) => r.kind), ["transferred", "assigned"]);
        assert.deepEqual(rows[0].detail, { from: ada.id, to: bob.id, via: "portal" });
      });

      await t.step("show* flags hide controls, and the server refuses them", async () => {
        const flags = {
          showSessionStatusChange: "status-switch",
          showAssignToMeButton: "assign-to-me",
          showSessionTransferButton: "transfer",
        };
        const id = await launch(page, {}, { id: "carol1", email: "carol@example.com" });
        await svc.db.sql`update sessions set assignee_id = null where id = ${id}`;
        await page.reload();
        for (const testId of Object.values(flags)) {
          assert.equal(await page.locator(`[data-testid=${testId}]`).count(), 1, testId);
        }
        await launch(page, {
          sessionId: id,
          showSessionStatusChange: false,
          showAssignToMeButton: "0",
          showSessionTransferButton: false,
        }, { id: "carol1", email: "carol@example.com" });
        await svc.db.sql`update sessions set assignee_id = null where id = ${id}`;
        await page.reload();
        for (const testId of Object.values(flags)) {
          assert.equal(await page.locator(`[data-testid=${testId}]`).count(), 0, testId);
        }
        // Posting the hidden control's form by hand is refused for this launch.
        const launchId = new URL(page.url()).searchParams.get("launch")!;
        const token = await page.getAttribute("meta[name=csrf-token]", "content");
        assert.ok(token, "the page names the login's CSRF token");
        for (const [path, body] of [["status", "status=closed"], ["assign", ""]]) {
          const res: { status(): number } = await page.request.post(
            `${svc.base}/portal/sessions/${id}/${path}`,
            {
              headers: { "Content-Type": "application/x-www-form-urlencoded" },
              data: `${body}&launch=${launchId}&csrf=${token}`,
              maxRedirects: 0,
            },
          );
          assert.equal(res.status(), 403, path);
        }
        const [s] = await svc.db.sql`select status, assignee_id from sessions where id = ${id}`;
        assert.deepEqual([s.status, s.assigneeId], ["open", null]);
      });

      await t.step("a form without the login's CSRF token is refused", async () => {
        const id = await launch(page);
        const res = await page.request.post(`${svc.base}/portal/sessions/${id}/status`, {
          headers: { "Content-Type": "application/x-www-form-urlencoded" },
          data: "status=closed&csrf=forged",
          maxRedirects: 0,
        });
        assert.equal(res.status(), 403);
        const [s] = await svc.db.sql`select status from sessions where id = ${id}`;
        assert.equal(s.status, "open");
      });

      await t.step(
        "language: fr-CA gives French strings and paths; unknown falls back",
        async () => {
          await launch(page, { "user.locale": "fr-CA" });
          assert.equal(await page.getAttribute("html", "lang"), "fr");
          assert.equal(await page.textContent("#paths-h"), "Parcours guidés");
          assert.ok((await listed(page)).includes("Imprimante hors ligne"));
          await page.click(`[data-testid=path-list] li:has-text("Imprimante") a`);
          assert.equal(await page.textContent("[data-testid=step-title]"), "Vérifier");
          assert.equal(await page.textContent("[data-testid=step-count]"), "Étape 1 sur 2");
          await launch(page, { "user.locale": "it-IT" });
          assert.equal(await page.getAttribute("html", "lang"), "en");
          assert.equal(await page.textContent("#paths-h"), "Guided paths");
          await launch(page, { "user.locale": "de" });
          assert.equal(await page.textContent("#paths-h"), "Geführte Pfade");
          assert.ok(
            (await listed(page)).includes("Printer offline"),
            "untranslated path: own title",
          );
        },
      );

      await t.step("no cookie: sign in with a password, then back to the page", async () => {
        const [ada] = await svc.db.sql`select id from users where external_id = 'agent42'`;
        const [s] = await svc.db.sql`select max(id) as id from sessions`;
        await svc.db.sql`update users set password_hash = ${await hashPassword(
          "correct horse",
          1000,
        )} where id = ${ada.id}`;
        const fresh: BrowserContext = await browser!.newContext();
        const p = await fresh.newPage();
        await p.goto(`${svc.base}/portal/sessions/${s.id}`);
        await p.waitForURL(/\/portal\/login\?next=/);
        await p.fill("input[name=email]", "ada@example.com");
        await p.fill("input[name=password]", "wrong");
        await p.click("button[type=submit]");
        assert.match(await p.textContent("[role=alert]") ?? "", /Wrong e-mail or password/);
        await p.fill("input[name=password]", "correct horse");
        await p.click("button[type=submit]");
        await p.waitForURL(new RegExp(`/portal/sessions/${s.id}$`));
        assert.equal(await p.getAttribute("main", "data-layout"), "standard");
        await fresh.close();
      });

      await t.step("failed sign-ins are rate-limited per account", async () => {
        const fresh = await browser!.newContext();
        const p = await fresh.newPage();
        await p.goto(`${svc.base}/portal/login`);
        // Five free failures; then each one makes the next attempt wait 1 s, 2 s, 4 s ...
        // (server/auth/sign_in_limiter.ts). A browser round trip can take over a second on a
        // loaded machine, so the sixth attempt may come after its wait; one of the next few
        // lands inside the doubling waits and is refused.
        const statuses: number[] = [];
        while (statuses.length < 10 && !statuses.includes(429)) {
          statuses.push(await submitSignIn(p, "bob@example.com", `nope${statuses.length}`));
        }
        assert.deepEqual(statuses.slice(0, 5), [401, 401, 401, 401, 401], "five free attempts");
        assert.equal(statuses.at(-1), 429, `refused after the free ones: ${statuses}`);
        assert.match(await p.textContent("[role=alert]") ?? "", /Too many failed attempts/);
        await fresh.close();
      });
    } finally {
      await browser?.close();
      await svc.close();
    }
  },
});
