/// <reference lib="dom" />
import assert from "node:assert/strict";
import type { Browser, Page } from "playwright-core";
import { signPayload } from "../../server/launch/signed_request.ts";
import { launchChromium, OUTPUT_DIR, submitSignIn } from "../helpers/browser.ts";
import { pglite } from "../helpers/db.ts";
import { startHttpService } from "../helpers/http_service.ts";
import { launchOk, signLaunch } from "../helpers/launch.ts";
import { launchPayload } from "../helpers/payload.ts";
import { postSignIn } from "../helpers/sign_in.ts";

const ADMIN = { email: "root@example.com", password: "admin-password-123" };

Deno.test({
  name: "admin screens in Chromium: sign-in, every screen's main path and its errors, inspector",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn(t) {
    const svc = await startHttpService(pglite, {
      ADMIN_EMAIL: ADMIN.email,
      ADMIN_PASSWORD: ADMIN.password,
    });
    let browser: Browser | undefined;
    try {
      browser = await launchChromium();
      const context = await browser.newContext();
      const page = await context.newPage();
      const go = (path: string) => page.goto(`${svc.base}${path}`);
      const errorOf = (p: Page, name: string) => p.textContent(`#f-${name}-error`);
      let apiKey = "";

      await t.step("sign-in: wrong password refused, then in and back to the page", async () => {
        await go("/admin/teams");
        await page.waitForURL(/\/admin\/login\?next=%2Fadmin%2Fteams/);
        await page.fill("#f-email", ADMIN.email);
        await page.fill("#f-password", "wrong-password");
        await page.click("button[type=submit]");
        assert.match(await page.textContent("[role=alert]") ?? "", /Wrong e-mail or password/);
        await page.fill("#f-password", ADMIN.password);
        await page.click("button[type=submit]");
        await page.waitForURL(/\/admin\/teams$/);
        const cookie = (await context.cookies()).find((c) => c.name === "admin_login")!;
        assert.equal(cookie.httpOnly, true);
        assert.equal(cookie.sameSite, "Lax");
        assert.equal(cookie.path, "/admin");
        assert.equal(cookie.secure, false, "Secure only over https");
      });

      await t.step("apps: per-field errors, generate, create, template", async () => {
        await go("/admin/apps/new");
        await page.fill("#f-appName", "bad name!");
        await page.fill("#f-frameAncestors", "not-an-origin");
        await page.click("button[name=save]");
        assert.match(await errorOf(page, "appName") ?? "", /letters, digits/);
        assert.match(await errorOf(page, "name") ?? "", /required/);
        assert.match(await errorOf(page, "frameAncestors") ?? "", /expected an origin/);
        assert.equal(await page.getAttribute("#f-appName", "aria-invalid"), "true");
        await page.selectOption("#f-authType", "oauth2_signed_request");
        await page.fill("#f-appName", "crm");
        await page.fill("#f-name", "Acme CRM");
        await page.fill("#f-frameAncestors", "https://crm.example.com");
        await page.click("button[name=save]");
        assert.match(await errorOf(page, "consumerKey") ?? "", /required/);
        await page.click("button[value=consumerSecret]");
        assert.equal((await page.inputValue("#f-consumerSecret")).length, 32, "generated");
        await page.selectOption("#f-authType", "signed_request");
        await page.click("button[value=apiKey]");
        apiKey = await page.inputValue("#f-apiKey");
        assert.match(apiKey, /^[A-Za-z0-9]{32}$/);
        await page.click("button[name=save]");
        await page.waitForSelector("[data-testid=template]");
        assert.match(await page.textContent("[data-testid=new-secret]") ?? "", /^\S{40}$/);
        assert.equal(
          await page.textContent("[data-testid=launch-url]"),
          `${svc.base}/portal/api/auth/app/crm`,
        );
        const template = JSON.parse(await page.textContent("[data-testid=template]") ?? "");
        assert.equal(template.algorithm, "HMACSHA256");
        await page.screenshot({ path: `${OUTPUT_DIR}admin-app.png`, fullPage: true });
        await go("/admin/apps/new");
        await page.fill("#f-appName", "CRM");
        await page.fill("#f-name", "Again");
        await page.click("button[name=save]");
        assert.match(await errorOf(page, "appName") ?? "", /already used/);
      });

      await t.step("apps: edit, disable, rotate the key (shown once)", async () => {
        await go("/admin/apps/crm/edit");
        await page.fill("#f-name", "Acme CRM v2");
        await page.click("button[name=save]");
        await page.waitForSelector("[role=status]");
        await page.click("button:has-text('Disable')");
        await page.waitForSelector("button:has-text('Enable')");
        const disabled = await svc.request("/portal/api/auth/app/crm", {
          method: "POST",
          headers: { Accept: "application/json" },
          body: new URLSearchParams({ signed_request: "x.y" }),
        });
        assert.equal(disabled.status, 404, "a disabled app cannot launch");
        await disabled.body?.cancel();
        await page.click("button:has-text('Enable')");
        await page.click("button:has-text('Rotate API key')");
        const rotated = await page.textContent("[data-testid=new-secret]") ?? "";
        assert.match(rotated, /^[A-Za-z0-9]{32}$/);
        assert.notEqual(rotated, apiKey);
        apiKey = rotated;
        await go("/admin/apps");
        assert.match(await page.textContent("[data-testid=apps]") ?? "", /Acme CRM v2/);
      });

      await t.step("field settings and custom fields", async () => {
        await go("/admin/field-settings");
        await page.uncheck("#c-externalSessionId-on");
        await page.click("button[type=submit]:has-text('Save')");
        await page.waitForSelector("[role=status]");
        let [f] = await svc.db.sql`select external_session_id from field_settings`;
        assert.equal(f.externalSessionId, false);
        await page.check("#c-externalSessionId-on");
        await page.click("button[type=submit]:has-text('Save')");
        [f] = await svc.db.sql`select external_session_id from field_settings`;
        assert.equal(f.externalSessionId, true);
        await go("/admin/custom-fields");
        await page.fill("#f-name", "9lives");
        await page.click("button:has-text('Add')");
        assert.match(await errorOf(page, "name") ?? "", /expected a letter/);
        await page.fill("#f-name", "priority");
        await page.fill("#f-label", "Priority level");
        await page.click("button:has-text('Add')");
        await page.waitForSelector("[data-testid=custom-fields] td:has-text('priority')");
        await page.fill("#f-name", "priority");
        await page.click("button:has-text('Add')");
        assert.match(await errorOf(page, "name") ?? "", /already exists/);
      });

      await t.step("guided paths: category, path with steps and translations", async () => {
        await go("/admin/guided-paths");
        await page.click("button:has-text('Add category')");
        assert.match(await errorOf(page, "name") ?? "", /required/);
        await page.fill("#f-name", "Printers");
        await page.click("button:has-text('Add category')");
        await page.waitForSelector("h2:has-text('Printers')");
        await go("/admin/guided-paths/paths/new");
        await page.fill("#f-title", "Printer offline");
        await page.fill("#f-tags", "Printer, Offline");
        await page.check("#c-published-on");
        await page.fill(
          "#f-steps",
          "# Check the cable\nPlug it in.\n\n# Restart\nTurn it off and on.",
        );
        await page.fill("#f-translations", "{not json");
        await page.click("button:has-text('Save')");
        assert.match(await errorOf(page, "translations") ?? "", /not valid JSON/);
        await page.fill("#f-translations", '{"fr": {"title": "Imprimante hors ligne"}}');
        await page.click("button:has-text('Save')");
        await page.waitForURL(/\/admin\/guided-paths\/paths\/[0-9a-f-]{36}\?saved=1/);
        const [p] = await svc.db.sql`select title, tags, steps, translations, published from paths`;
        assert.deepEqual(p.tags, ["printer", "offline"]);
        assert.deepEqual(p.steps, [
          { title: "Check the cable", body: "Plug it in." },
          { title: "Restart", body: "Turn it off and on." },
        ]);
        assert.equal(p.translations.fr.title, "Imprimante hors ligne");
        assert.equal(p.published, true);
        assert.equal(
          await page.inputValue("#f-steps"),
          "# Check the cable\nPlug it in.\n\n# Restart\nTurn it off and on.",
        );
      });

      await t.step("teams and users: create, search, edit profile, set a password", async () => {
        await go("/admin/teams");
        await page.fill("#f-teamId", "T 1");
        await page.fill("#f-name", "Tier 1");
        await page.click("button:has-text('Add team')");
        assert.match(await errorOf(page, "teamId") ?? "", /letters, digits/);
        await page.fill("#f-teamId", "T1");
        await page.click("button:has-text('Add team')");
        await page.waitForSelector("[data-testid=teams] code:has-text('T1')");
        await launchOk(
          svc,
          { appName: "crm", apiKey, clientId: "", clientSecret: "" },
          launchPayload(),
        );
        await go("/admin/users?q=ada");
        assert.equal(await page.locator("[data-testid=users] tbody tr").count(), 1);
        await page.click("[data-testid=users] a");
        await page.fill("#f-email", "ada@example");
        await page.fill("#f-locale", "fr-CA");
        await page.click("button:has-text('Save profile')");
        assert.match(await errorOf(page, "email") ?? "", /expected an e-mail/);
        await page.fill("#f-email", "ada@example.com");
        await page.check("input[name=teamIds]");
        await page.click("button:has-text('Save profile')");
        await page.waitForSelector("[role=status]");
        const [u] = await svc.db.sql`select id, locale from users where external_id = 'agent42'`;
        assert.equal(u.locale, "fr-CA");
        const [m] = await svc.db.sql`select count(*) from team_members where user_id = ${u.id}`;
        assert.equal(m.count, 1);
        await page.fill("#f-password", "short");
        await page.click("button:has-text('Set password')");
        assert.match(await errorOf(page, "password") ?? "", /at least 12/);
        await page.fill("#f-password", "agent-password-1");
        await page.click("button:has-text('Set password')");
        await page.waitForSelector("text=Password set.");
        const login = await postSignIn(svc, "/portal/login", {
          email: "ada@example.com",
          password: "agent-password-1",
        });
        assert.equal(login.status, 303, "the agent can sign in to the portal");
      });

      await t.step("launch log: filtered list and a detail page with the error", async () => {
        await svc.request("/portal/api/auth/app/crm", {
          method: "POST",
          headers: { Accept: "application/json" },
          body: new URLSearchParams({
            signed_request: await signLaunch(launchPayload({}, { email: "bad" }), apiKey),
          }),
        }).then((r) => r.body?.cancel());
        await go("/admin/launches?outcome=invalid_payload");
        assert.equal(await page.locator("[data-testid=launches] tbody tr").count(), 1);
        await page.click("[data-testid=launches] a");
        assert.equal(await page.textContent("[data-testid=outcome]"), "invalid_payload");
        assert.match(await page.textContent("[data-testid=error]") ?? "", /Invalid launch payload/);
        assert.match(await page.textContent("[data-testid=payload]") ?? "", /"email": "bad"/);
        await go("/admin/launches?app=crm&outcome=ok");
        assert.ok(await page.locator("[data-testid=launches] tbody tr").count() >= 1);
      });

      const inspect = async (value: string) => {
        await go("/admin/inspector");
        await page.selectOption("#f-appName", "crm");
        await page.fill("#f-signedRequest", value);
        await page.click("button:has-text('Inspect')");
        await page.waitForSelector("[data-testid=inspection]");
      };

      await t.step("inspector: a good request shows the payload and the plan", async () => {
        const signed = await signPayload(JSON.stringify(launchPayload()), apiKey);
        await inspect(signed);
        assert.match(await page.textContent("[data-testid=signature]") ?? "", /matches/);
        assert.match(await page.textContent("[data-testid=payload]") ?? "", /agent42/);
        assert.equal(await page.textContent("[data-testid=validation]"), "Valid launch payload");
        assert.match(await page.textContent("[data-testid=plan]") ?? "", /Agent: update/);
        await page.screenshot({ path: `${OUTPUT_DIR}admin-inspector.png`, fullPage: true });
      });

      await t.step("inspector: a wrong key and a '+' sent as a space are diagnosed", async () => {
        await inspect(await signPayload(JSON.stringify(launchPayload()), "another-key-0123456789"));
        assert.match(await page.textContent("[data-testid=signature]") ?? "", /does not match/);
        assert.match(await page.textContent("[data-testid=causes]") ?? "", /Wrong key/);
        // A signature with '+' in it, sent unencoded in a form body, arrives with spaces.
        let signed = "";
        for (let i = 0; !signed.split(".")[0].includes("+"); i++) {
          signed = await signPayload(
            JSON.stringify(launchPayload({ referenceId: `R${i}` })),
            apiKey,
          );
        }
        await inspect(signed.replaceAll("+", " "));
        assert.match(await page.textContent("[data-testid=causes]") ?? "", /arrived as spaces/);
        await inspect(await signPayload(JSON.stringify(launchPayload({}, { email: "x" })), apiKey));
        assert.match(
          await page.textContent("[data-testid=problems]") ?? "",
          /context\.user\.email/,
        );
        const [{ count }] = await svc.db.sql`select count(*) from launches`;
        await inspect(await signPayload(JSON.stringify(launchPayload()), apiKey));
        const [{ count: after }] = await svc.db.sql`select count(*) from launches`;
        assert.equal(after, count, "the inspector writes nothing");
      });

      await t.step("keyboard: the navigation is reachable with Tab", async () => {
        await go("/admin/apps");
        let label = "";
        for (let i = 0; i < 10 && label !== "Launch log"; i++) {
          await page.keyboard.press("Tab");
          label = await page.evaluate(() => document.activeElement?.textContent?.trim() ?? "");
        }
        assert.equal(label, "Launch log");
        await page.keyboard.press("Enter");
        await page.waitForURL(/\/admin\/launches$/);
      });

      await t.step("a form without the CSRF token is refused", async () => {
        const res = await page.request.post(`${svc.base}/admin/teams`, {
          form: { teamId: "T9", name: "Forged" },
          maxRedirects: 0,
        });
        assert.equal(res.status(), 403);
        const [{ count }] = await svc.db.sql`select count(*) from teams where team_id = 'T9'`;
        assert.equal(count, 0);
      });

      await t.step("an agent's portal login cannot open the admin screens", async () => {
        const agentContext = await browser!.newContext();
        const agentPage = await agentContext.newPage();
        const signed = await signLaunch(launchPayload(), apiKey);
        await agentPage.goto(`${svc.base}/healthz`);
        await agentPage.setContent(
          `<form method="post" action="${svc.base}/portal/api/auth/app/crm">` +
            `<input name="signed_request" value="${signed}"></form>`,
        );
        await Promise.all([
          agentPage.waitForURL(/\/portal\/sessions\//),
          agentPage.evaluate(() => document.forms[0].submit()),
        ]);
        const portalCookie = (await agentContext.cookies()).find((c) => c.name === "portal_login")!;
        await agentPage.goto(`${svc.base}/admin/apps`);
        await agentPage.waitForURL(/\/admin\/login/);
        // Even the agent's token presented as an admin cookie is refused.
        await agentContext.addCookies([{
          name: "admin_login",
          value: portalCookie.value,
          url: `${svc.base}/admin`,
        }]);
        await agentPage.goto(`${svc.base}/admin/apps`);
        await agentPage.waitForURL(/\/admin\/login/);
        assert.equal(
          await submitSignIn(agentPage, "ada@example.com", "agent-password-1"),
          401,
          "agents cannot sign in as administrators",
        );
        await agentContext.close();
      });

      await t.step("sign out ends the session", async () => {
        await go("/admin/apps");
        await page.click("button:has-text('Sign out')");
        await page.waitForURL(/\/admin\/login/);
        await go("/admin/apps");
        await page.waitForURL(/\/admin\/login/);
      });
    } finally {
      await browser?.close();
      await svc.close();
    }
  },
});
