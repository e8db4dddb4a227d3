/**
 * No secret reaches the log: the request log of a whole password reset and of a launch holds none
 * of the secrets they used (reset token, signed request, API key, login cookie, passwords).
 */
import assert from "node:assert/strict";
import { redactPath } from "../../../server/http/redact.ts";
import { pglite } from "../../helpers/db.ts";
import { startTestService } from "../../helpers/service.ts";
import { createTestApp, signLaunch } from "../../helpers/launch.ts";
import { launchPayload } from "../../helpers/payload.ts";
import { startSmtpSink } from "../../helpers/smtp.ts";
import { waitUntil } from "../../helpers/crm_server.ts";
import { uniqueId } from "../../helpers/shared.ts";

const TOKEN = "Q2xhdWRlIGlzIGEgZ29vZCBjb2RlciBhbmQgZnJpZW5kLg-_0123456";

Deno.test("redactPath hides reset tokens and token-shaped segments, nothing else", () => {
  assert.equal(redactPath(`/portal/password-reset/${TOKEN}`), "/portal/password-reset/…");
  assert.equal(redactPath(`/admin/password-reset/${TOKEN}`), "/admin/password-reset/…");
  assert.equal(redactPath(`/anything/${TOKEN}/more`), "/anything/…/more", "a future token path");
  assert.equal(redactPath("/portal/password-reset"), "/portal/password-reset");
  assert.equal(redactPath("/portal/password-reset/"), "/portal/password-reset/");
  const uid = "3f2b8c1e-9d4a-4e7b-8a6c-1b2d3e4f5a6b";
  assert.equal(redactPath(`/portal/sessions/42/paths/${uid}`), `/portal/sessions/42/paths/${uid}`);
  assert.equal(redactPath("/api/v1/sessions/17"), "/api/v1/sessions/17");
});

Deno.test({
  name: "logs: a whole password reset and a launch log none of their secrets",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const smtp = await startSmtpSink();
    const svc = await startTestService(pglite, {
      SMTP_URL: smtp.url,
      MAIL_RETRY_BASE_MS: "50",
      LOG_LEVEL: "info",
    });
    const lines: string[] = [];
    const [log, error] = [console.log, console.error];
    console.log = console.error = (...args: unknown[]) => lines.push(args.map(String).join(" "));
    try {
      const app = await createTestApp(svc, await svc.adminToken(), uniqueId("log"));
      const id = uniqueId("ag");
      const email = `${id}@example.com`;
      const signed = await signLaunch(launchPayload({}, { id, email }), app.apiKey);
      const launched = await svc.request(`/portal/api/auth/app/${app.appName}`, {
        method: "POST",
        headers: { Accept: "text/html" },
        body: new URLSearchParams({ signed_request: signed }),
      });
      assert.equal(launched.status, 303);
      const cookie = launched.headers.get("Set-Cookie")!.split(";")[0];
      await svc.request(launched.headers.get("Location")!, { headers: { Cookie: cookie } })
        .then((r) => r.body?.cancel());
      const asked = await svc.request("/portal/password-reset", {
        method: "POST",
        body: new URLSearchParams({ email }),
      });
      assert.equal(asked.status, 200);
      await asked.body?.cancel();
      const [mail] = await waitUntil(() => {
        const got = smtp.messages.filter((m) => m.to.includes(email));
        return got.length > 0 && got;
      }, "the reset mail");
      const link = mail.decoded.match(/\/portal\/password-reset\/[A-Za-z0-9_-]{43}/)![0];
      const token = link.split("/").pop()!;
      await svc.request(link).then((r) => r.body?.cancel());
      const password = "a-good-new-passphrase-42";
      const done = await svc.request(link, {
        method: "POST",
        body: new URLSearchParams({ password, confirm: password }),
      });
      assert.equal(done.status, 303);
      const logged = lines.join("\n");
      assert.match(logged, /password-reset\/…/, "the reset requests are logged, redacted");
      for (
        const secret of [token, signed, signed.split(".")[0], app.apiKey, cookie.split("=")[1]]
      ) {
        assert.ok(!logged.includes(secret), `a secret reached the log: ${secret.slice(0, 12)}…`);
      }
      assert.ok(!logged.includes(password));
    } finally {
      console.log = log;
      console.error = error;
      await svc.close();
      await smtp.close();
    }
  },
});
