/**
 * The lost-password function over real SMTP: the link arrives and works once, old passwords and
 * logins end, unknown addresses get the same answer in similar time, expired/reused/superseded
 * links are refused, requests are rate-limited, mail waits for a server that is down, and each
 * agent gets the mail in their language.
 */
import assert from "node:assert/strict";
import { backends } from "../../helpers/db.ts";
import { startTestService, type TestService } from "../../helpers/service.ts";
import { sharedFixture, uniqueId } from "../../helpers/shared.ts";
import { createTestApp, signLaunch, type TestApp } from "../../helpers/launch.ts";
import { launchPayload } from "../../helpers/payload.ts";
import { type SmtpSink, startSmtpSink } from "../../helpers/smtp.ts";
import { waitUntil } from "../../helpers/crm_server.ts";
import { freePort } from "../../helpers/process.ts";
import { postSignIn } from "../../helpers/sign_in.ts";

const opts = { sanitizeOps: false, sanitizeResources: false };
const ADMIN = { email: "root@example.com", password: "root-password-0123456789" };

interface Fixture {
  svc: TestService;
  smtp: SmtpSink;
  app: TestApp;
}

for (const backend of backends) {
  const fixture = sharedFixture<Fixture>(async () => {
    const smtp = await startSmtpSink();
    const svc = await startTestService(backend, {
      SMTP_URL: smtp.url,
      MAIL_FROM: "Portal <portal@example.com>",
      MAIL_RETRY_BASE_MS: "50",
      ADMIN_EMAIL: ADMIN.email,
      ADMIN_PASSWORD: ADMIN.password,
    });
    const app = await createTestApp(svc, await svc.adminToken(), uniqueId("pw"));
    return { svc, smtp, app };
  }, async ({ svc, smtp }) => {
    await svc.close();
    await smtp.close();
  });

  /** Launches a new agent; returns its e-mail and its launch cookie. */
  const agent = async (f: Fixture, user: Record<string, string> = {}) => {
    const id = uniqueId("ag");
    const email = `${id}@example.com`;
    const res = await f.svc.request(`/portal/api/auth/app/${f.app.appName}`, {
      method: "POST",
      headers: { Accept: "text/html" },
      body: new URLSearchParams({
        signed_request: await signLaunch(
          launchPayload({ contactId: uniqueId("C") }, { id, email, ...user }),
          f.app.apiKey,
        ),
      }),
    });
    assert.equal(res.status, 303);
    await res.body?.cancel();
    return { email, cookie: res.headers.get("Set-Cookie")!.split(";")[0] };
  };

  const ask = async (f: Fixture, email: string, path = "/portal/password-reset") => {
    const started = performance.now();
    const res = await f.svc.request(path, {
      method: "POST",
      body: new URLSearchParams({ email }),
    });
    return { status: res.status, body: await res.text(), ms: performance.now() - started, res };
  };

  const mailTo = (f: Fixture, email: string, n = 1) =>
    waitUntil(() => {
      const got = f.smtp.messages.filter((m) => m.to.includes(email));
      return got.length >= n && got;
    }, `${n} mail(s) to ${email}`);

  const linkIn = (decoded: string) =>
    decoded.match(/http:\/\/portal\.test\/(?:portal|admin)\/password-reset\/[A-Za-z0-9_-]{43}/)![0]
      .replace("http://portal.test", "");

  const setPassword = (f: Fixture, link: string, password: string, confirm = password) =>
    f.svc.request(link, { method: "POST", body: new URLSearchParams({ password, confirm }) });

  const signIn = async (f: Fixture, email: string, password: string) => {
    const res = await postSignIn(f.svc, "/portal/login", { email, password });
    await res.body?.cancel();
    return res.status;
  };

  Deno.test(
    `password reset: mail with a working link; old password and logins end [${backend.name}]`,
    opts,
    async () => {
      const f = await fixture();
      const { email, cookie } = await agent(f);
      const signInPage = await (await f.svc.request("/portal/login")).text();
      assert.match(signInPage, /href="\/portal\/password-reset">Forgot your password\?/);
      const asked = await ask(f, email);
      assert.equal(asked.status, 200);
      assert.match(asked.body, /If an account exists for .*, we sent it a link\. It works for 30/);
      const [mail] = await mailTo(f, email);
      assert.equal(mail.subject, "Reset your Portal Launcher password");
      assert.match(mail.raw, /^From: Portal <portal@example\.com>/m);
      assert.match(mail.raw, /Content-Type: multipart\/alternative/, "text and HTML parts");
      const link = linkIn(mail.decoded);
      const form = await f.svc.request(link);
      assert.equal(form.status, 200);
      // The token never leaves the portal's origin in a Referer.
      assert.equal(form.headers.get("Referrer-Policy"), "same-origin");
      assert.match(await form.text(), /name="password"/);
      const short = await setPassword(f, link, "short");
      assert.equal(short.status, 400);
      assert.match(await short.text(), /at least 12 characters/);
      const differ = await setPassword(f, link, "a-good-new-passphrase", "another-passphrase");
      assert.equal(differ.status, 400);
      await differ.body?.cancel();
      const done = await setPassword(f, link, "a-good-new-passphrase");
      assert.equal(done.status, 303, "signed in");
      assert.equal(done.headers.get("Location"), "/portal/sessions");
      const fresh = done.headers.get("Set-Cookie")!.split(";")[0];
      const mine = await f.svc.request("/portal/sessions", { headers: { Cookie: fresh } });
      assert.equal(mine.status, 200);
      await mine.body?.cancel();
      const old = await f.svc.request("/portal/sessions", { headers: { Cookie: cookie } });
      assert.equal(old.status, 303, "the launch's login ended");
      await old.body?.cancel();
      assert.equal(await signIn(f, email, "a-good-new-passphrase"), 303);
      const again = await f.svc.request(link);
      assert.equal(again.status, 410, "single use");
      await again.body?.cancel();
      const [, changed] = await mailTo(f, email, 2);
      assert.equal(changed.subject, "Your Portal Launcher password was changed");
      const [outbox] = await f.svc.db.sql`select text_body from mail_outbox
      where recipient = ${email} and status = 'sent' order by id limit 1`;
      assert.equal(outbox.text_body ?? outbox.textBody, "", "sent bodies are blanked");
    },
  );

  Deno.test(
    `password reset: an unknown address gets the same page in similar time, no mail [${backend.name}]`,
    opts,
    async () => {
      const f = await fixture();
      const { email } = await agent(f);
      const known = await ask(f, email);
      const unknown = await ask(f, `nobody-${uniqueId()}@example.com`);
      const strip = (html: string) => html.replace(/for [^ ]+@example\.com/, "for X");
      assert.equal(unknown.status, known.status);
      assert.equal(strip(unknown.body), strip(known.body));
      assert.ok(Math.abs(known.ms - unknown.ms) < 100, `${known.ms} vs ${unknown.ms} ms`);
      await mailTo(f, email);
      assert.equal(f.smtp.messages.filter((m) => m.to[0].startsWith("nobody-")).length, 0);
    },
  );

  Deno.test(
    `password reset: expired, superseded and pre-change links are refused [${backend.name}]`,
    opts,
    async () => {
      const f = await fixture();
      const { email } = await agent(f);
      await ask(f, email);
      const first = linkIn((await mailTo(f, email, 1))[0].decoded);
      await ask(f, email);
      const second = linkIn((await mailTo(f, email, 2))[1].decoded);
      const superseded = await f.svc.request(first);
      assert.equal(superseded.status, 410);
      assert.match(await superseded.text(), /invalid, already used or expired/);
      // An administrator sets the password: the live link was issued for the old one.
      const [user] = await f.svc.db.sql`select id from users where email = ${email}`;
      const admin = await f.svc.adminToken();
      const put = await f.svc.api("PUT", `/api/v1/admin/agents/${user.id}/password`, admin, {
        password: "set-by-the-administrator",
      });
      assert.equal(put.status, 204);
      const voided = await setPassword(f, second, "a-good-new-passphrase");
      assert.equal(voided.status, 410);
      await voided.body?.cancel();
      await ask(f, email);
      const third = linkIn((await mailTo(f, email, 3))[2].decoded);
      await f.svc.db.sql`update password_resets set expires_at = now() - interval '1 second'
      where user_id = ${user.id}`;
      const expired = await f.svc.request(third);
      assert.equal(expired.status, 410);
      await expired.body?.cancel();
      assert.equal(await signIn(f, email, "set-by-the-administrator"), 303);
    },
  );

  Deno.test(
    `password reset: requests for one address are rate-limited with a wait [${backend.name}]`,
    opts,
    async () => {
      const f = await fixture();
      const { email } = await agent(f);
      for (let i = 0; i < 3; i++) assert.equal((await ask(f, email)).status, 200);
      const limited = await ask(f, email);
      assert.equal(limited.status, 429);
      assert.ok(Number(limited.res.headers.get("Retry-After")) >= 1);
      assert.match(limited.body, /Too many requests\. Try again in \d+\u00a0(minutes?|seconds?)\./);
    },
  );

  Deno.test(
    `password reset: a French agent gets the French mail and pages [${backend.name}]`,
    opts,
    async () => {
      const f = await fixture();
      const { email } = await agent(f, { locale: "fr-FR" });
      await ask(f, email);
      const [mail] = await mailTo(f, email);
      assert.equal(mail.subject, "Réinitialiser votre mot de passe Portal Launcher");
      assert.match(mail.decoded, /Ouvrez ce lien dans les 30 minutes/);
      const page = await (await f.svc.request(linkIn(mail.decoded))).text();
      assert.match(page, /Choisir un nouveau mot de passe/);
    },
  );

  Deno.test(
    `password reset: administrators have the same function [${backend.name}]`,
    opts,
    async () => {
      const f = await fixture();
      const login = await (await f.svc.request("/admin/login")).text();
      assert.match(login, /href="\/admin\/password-reset"/);
      const asked = await ask(f, ADMIN.email, "/admin/password-reset");
      assert.equal(asked.status, 200);
      const mails = await mailTo(f, ADMIN.email);
      const link = linkIn(mails.at(-1)!.decoded);
      assert.match(link, /^\/admin\/password-reset\//);
      const done = await setPassword(f, link, "admin-new-passphrase-42");
      assert.equal(done.status, 303);
      assert.equal(done.headers.get("Location"), "/admin/apps");
      const agentLink = await f.svc.request(link.replace("/admin/", "/portal/"));
      assert.equal(agentLink.status, 410, "an admin's link is no portal link");
      await agentLink.body?.cancel();
    },
  );
}

Deno.test(
  "password reset: mail waits while SMTP is down and goes when it is back",
  opts,
  async () => {
    const port = freePort();
    const svc = await startTestService(backends[0], {
      SMTP_URL: `smtp://127.0.0.1:${port}`,
      MAIL_RETRY_BASE_MS: "100",
      CALLBACK_TIMEOUT_MS: "1000",
    });
    let smtp: SmtpSink | undefined;
    try {
      const app = await createTestApp(svc, await svc.adminToken(), uniqueId("pw"));
      const id = uniqueId("ag");
      const launched = await svc.request(`/portal/api/auth/app/${app.appName}`, {
        method: "POST",
        body: new URLSearchParams({
          signed_request: await signLaunch(
            launchPayload({ contactId: uniqueId("C") }, { id, email: `${id}@example.com` }),
            app.apiKey,
          ),
        }),
      });
      await launched.body?.cancel();
      const asked = await svc.request("/portal/password-reset", {
        method: "POST",
        body: new URLSearchParams({ email: `${id}@example.com` }),
      });
      assert.equal(asked.status, 200, "the page does not wait for the mail server");
      await asked.body?.cancel();
      await waitUntil(async () => {
        const [row] = await svc.db.sql`select attempts, last_error from mail_outbox`;
        return row?.attempts >= 2 && row;
      }, "two failed attempts");
      smtp = await startSmtpSink(port);
      await waitUntil(
        () => smtp!.messages.length === 1,
        "the mail after the server came back",
        15_000,
      );
      // The sink has the message before the worker records it: wait for the record.
      const row = await waitUntil(async () => {
        const [r] = await svc.db.sql`select status from mail_outbox`;
        return r.status !== "sending" && r;
      }, "the mail recorded after the send");
      assert.equal(row.status, "sent");
    } finally {
      await svc.close();
      await smtp?.close();
    }
  },
);

Deno.test("password reset: without SMTP_URL the page says the function is off", opts, async () => {
  const svc = await startTestService(backends[0]);
  try {
    const page = await (await svc.request("/portal/password-reset")).text();
    assert.match(page, /not configured on this portal/);
    const posted = await svc.request("/portal/password-reset", {
      method: "POST",
      body: new URLSearchParams({ email: "someone@example.com" }),
    });
    assert.equal(posted.status, 503);
    await posted.body?.cancel();
    const admin = await (await svc.request("/admin/password-reset")).text();
    assert.match(admin, /not configured \(SMTP_URL is not set\)/);
  } finally {
    await svc.close();
  }
});
