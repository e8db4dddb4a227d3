/** An app's callbacks on the admin screens: the form, the app page, test event, log, redeliver. */
import assert from "node:assert/strict";
import { backends } from "../../helpers/db.ts";
import { startTestService, type TestService } from "../../helpers/service.ts";
import { sharedFixture, uniqueId } from "../../helpers/shared.ts";
import { createTestApp } from "../../helpers/launch.ts";
import { startCrmServer } from "../../helpers/crm_server.ts";
import { CALLBACK_ENV } from "../callbacks/fixture.ts";
import { postSignIn } from "../../helpers/sign_in.ts";

const opts = { sanitizeOps: false, sanitizeResources: false };

for (const backend of backends) {
  const service = sharedFixture(
    () =>
      startTestService(backend, {
        ...CALLBACK_ENV,
        ADMIN_EMAIL: "root@example.com",
        ADMIN_PASSWORD: "root-password-0123456789",
      }),
    (svc: TestService) => svc.close(),
  );

  Deno.test(
    `admin screens: callbacks are set on the app form, tested, logged and redelivered [${backend.name}]`,
    opts,
    async () => {
      const svc = await service();
      const crm = startCrmServer();
      try {
        const token = await svc.adminToken();
        const app = await createTestApp(svc, token, uniqueId("cs"));
        const signIn = await postSignIn(svc, "/admin/login", {
          email: "root@example.com",
          password: "root-password-0123456789",
        });
        const cookie = signIn.headers.get("Set-Cookie")!.split(";")[0];
        await signIn.body?.cancel();
        const get = async (path: string) =>
          await (await svc.request(path, { headers: { Cookie: cookie } })).text();
        const edit = await get(`/admin/apps/${app.appName}/edit`);
        const csrf = edit.match(/name="csrf" value="([^"]+)"/)![1];
        const post = (path: string, fields: [string, string][]) =>
          svc.request(path, {
            method: "POST",
            headers: { Cookie: cookie },
            body: new URLSearchParams([["csrf", csrf], ...fields]),
          });
        const bad = await post(`/admin/apps/${app.appName}`, [
          ["name", "CS"],
          ["authType", "signed_request"],
          ["implementor", "default"],
          ["callbackUrl", "ftp://crm.example.com"],
          ["callbackMethod", "PUT"],
          ["clientScopes", "sessions:read"],
          ["save", "1"],
        ]);
        assert.equal(bad.status, 400);
        assert.match(await bad.text(), /id="f-callbackUrl-error"[^>]*>expected an http/);
        const saved = await post(`/admin/apps/${app.appName}`, [
          ["name", "CS"],
          ["authType", "signed_request"],
          ["implementor", "default"],
          ["callbackUrl", `${crm.url}/hooks/{referenceId}`],
          ["callbackMethod", "PUT"],
          ["callbackEvents", "session.closed"],
          ["callbackEvents", "path.completed"],
          ["clientScopes", "sessions:read"],
          ["enabled", "on"],
          ["save", "1"],
        ]);
        const page = await saved.text();
        assert.equal(saved.status, 200, page.slice(0, 300));
        // Made with the app, shown in full by its create answer only.
        const secret = (app as unknown as { callbackSecret: string }).callbackSecret;
        assert.ok(page.includes(`<code>••••••••${secret.slice(-4)}</code>`), "masked after");
        crm.secrets.push(secret);
        const api = await (await svc.api("GET", `/api/v1/admin/apps/${app.appName}`, token)).json();
        assert.equal(api.callbackMethod, "PUT");
        assert.deepEqual(api.callbackEvents, ["session.closed", "path.completed"]);
        assert.match(api.callbackSecret, /^••••••••/);
        const detail = await get(`/admin/apps/${app.appName}`);
        assert.match(detail, /data-testid="callback-url"><code>PUT http:\/\/127\.0\.0\.1/);
        const test = await post(`/admin/apps/${app.appName}/callbacks/test`, []);
        assert.match(await test.text(), /Test event delivered: HTTP 200/);
        assert.equal(crm.received.length, 1);
        assert.equal(crm.received[0].method, "PUT");
        assert.equal(crm.received[0].verified, true);
        const log = await get(`/admin/apps/${app.appName}/deliveries`);
        assert.match(log, /<code>ping<\/code>/);
        const id = log.match(/deliveries\/(\d+)\/redeliver/)![1];
        const again = await post(`/admin/apps/${app.appName}/deliveries/${id}/redeliver`, []);
        assert.match(await again.text(), new RegExp(`Event ${id} queued again`));
        await crm.waitFor(2);
        const rotated = await post(`/admin/apps/${app.appName}/rotate-callback-secret`, []);
        const rotatedPage = await rotated.text();
        assert.match(rotatedPage, /New callback signing secret \(shown once/);
        assert.match(rotatedPage, /previous secret also signs until/);
      } finally {
        await crm.close();
      }
    },
  );
}
