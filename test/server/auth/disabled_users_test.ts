/**
 * Disabling a user: all of the user's logins end at once; sign-in, password reset, launches and
 * assignment refuse the user until enabled again; the last enabled administrator and one's own
 * account cannot be disabled. PGlite and PostgreSQL.
 */
import assert from "node:assert/strict";
import { backends } from "../../helpers/db.ts";
import { startTestService, type TestService } from "../../helpers/service.ts";
import { sharedFixture, uniqueId } from "../../helpers/shared.ts";
import { createTestApp, signLaunch, type TestApp } from "../../helpers/launch.ts";
import { launchPayload } from "../../helpers/payload.ts";
import { postSignIn } from "../../helpers/sign_in.ts";
import { type SmtpSink, startSmtpSink } from "../../helpers/smtp.ts";

const opts = { sanitizeOps: false, sanitizeResources: false };
const ADMIN = { email: "root@example.com", password: "root-password-0123456789" };
const AGENT_PASSWORD = "agent-password-0123456789";

interface Fixture {
  svc: TestService;
  smtp: SmtpSink;
  app: TestApp;
  token: string;
}

for (const backend of backends) {
  const fixture = sharedFixture<Fixture>(async () => {
    const smtp = await startSmtpSink();
    const svc = await startTestService(backend, {
      SMTP_URL: smtp.url,
      ADMIN_EMAIL: ADMIN.email,
      ADMIN_PASSWORD: ADMIN.password,
    });
    const token = await svc.adminToken();
    const app = await createTestApp(svc, token, uniqueId("du"));
    return { svc, smtp, app, token };
  }, async ({ svc, smtp }) => {
    await svc.close();
    await smtp.close();
  });

  const launch = async (f: Fixture, user: { id: string; email: string }) => {
    return await f.svc.request(`/portal/api/auth/app/${f.app.appName}`, {
      method: "POST",
      headers: { Accept: "application/json" },
      body: new URLSearchParams({
        signed_request: await signLaunch(
          launchPayload({ contactId: uniqueId("C") }, user),
          f.app.apiKey,
        ),
      }),
    });
  };

  /** A launched agent with a portal password and two live logins (launch, password sign-in). */
  const agentWithLogins = async (f: Fixture) => {
    const id = uniqueId("ag");
    const email = `${id}@example.com`;
    const launched = await launch(f, { id, email });
    assert.equal(launched.status, 200, await launched.clone().text());
    const { sessionId, agentId } = await launched.json();
    // Setting the password ends the launch's login; the second launch makes a new one.
    const set = await f.svc.api("PUT", `/api/v1/admin/agents/${agentId}/password`, f.token, {
      password: AGENT_PASSWORD,
    });
    assert.equal(set.status, 204);
    const signed = await postSignIn(f.svc, "/portal/login", { email, password: AGENT_PASSWORD });
    assert.equal(signed.status, 303);
    await signed.body?.cancel();
    const cookie = signed.headers.get("Set-Cookie")!.split(";")[0];
    const relaunched = await launch(f, { id, email });
    assert.equal(relaunched.status, 200);
    await relaunched.body?.cancel();
    return { id, email, agentId: Number(agentId), sessionId: Number(sessionId), cookie };
  };

  const loginCount = async (f: Fixture, userId: number) => {
    const [row] = await f.svc.db.sql`select count(*)::int as n from logins
      where user_id = ${userId}`;
    return row.n as number;
  };

  /** Asks for a reset link; the answer is the same 200 page whether or not a mail goes out. */
  const askReset = async (f: Fixture, email: string) => {
    const res = await f.svc.request("/portal/password-reset", {
      method: "POST",
      body: new URLSearchParams({ email }),
    });
    assert.equal(res.status, 200);
    await res.body?.cancel();
  };

  const setDisabled = (f: Fixture, id: number, disabled: unknown) =>
    f.svc.api("PATCH", `/api/v1/admin/users/${id}`, f.token, { disabled });

  Deno.test(
    `disabled users: disabling ends every login; sign-in, reset and launch refuse [${backend.name}]`,
    opts,
    async () => {
      const f = await fixture();
      const a = await agentWithLogins(f);
      assert.equal(await loginCount(f, a.agentId), 2);
      const open = await f.svc.request("/portal/sessions", { headers: { Cookie: a.cookie } });
      assert.equal(open.status, 200);
      await open.body?.cancel();

      const res = await setDisabled(f, a.agentId, true);
      assert.equal(res.status, 200);
      const body = await res.json();
      assert.equal(body.disabled, true);
      assert.equal(body.loginsEnded, 2);
      assert.ok(Date.parse(body.disabledAt) > 0);
      assert.equal(await loginCount(f, a.agentId), 0, "deleted in the same statement");
      const after = await f.svc.request("/portal/sessions", { headers: { Cookie: a.cookie } });
      assert.equal(after.status, 303, "the cookie no longer signs in");
      await after.body?.cancel();

      // Sign-in: the same answer as a wrong password (no account state is revealed).
      const right = await postSignIn(f.svc, "/portal/login", {
        email: a.email,
        password: AGENT_PASSWORD,
      });
      const wrong = await postSignIn(f.svc, "/portal/login", {
        email: a.email,
        password: "not-the-password-000",
      });
      assert.equal(right.status, wrong.status);
      assert.notEqual(right.status, 303);
      assert.doesNotMatch(right.headers.get("Set-Cookie") ?? "", /portal_login=/);
      const page = async (r: Response) =>
        (await r.text()).replace(/name="signin_csrf" value="[^"]+"/, "");
      assert.equal(await page(right), await page(wrong), "the same page as a wrong password");

      // Password reset: the usual answer, but no mail is queued.
      await askReset(f, a.email);
      const [mail] = await f.svc.db.sql`select count(*)::int as n from mail_outbox
        where recipient = ${a.email}`;
      assert.equal(mail.n, 0);

      // Launch, by the app's external id and by e-mail: 403, nothing written.
      const [before] = await f.svc.db.sql`select
        (select count(*)::int from launches where outcome = 'ok') as launches,
        (select count(*)::int from sessions) as sessions,
        (select updated_at from users where id = ${a.agentId}) as updated`;
      for (const user of [{ id: a.id, email: `other-${a.email}` }, { id: "", email: a.email }]) {
        const refused = await launch(f, user);
        assert.equal(refused.status, 403);
        const err = await refused.json();
        assert.equal(err.code, "agent_disabled");
        assert.match(err.message, /is disabled.*enable/);
        assert.deepEqual(err.errors, [
          { path: "context.user", code: "invalid", message: "names a disabled agent" },
        ]);
      }
      const [now] = await f.svc.db.sql`select
        (select count(*)::int from launches where outcome = 'ok') as launches,
        (select count(*)::int from sessions) as sessions,
        (select updated_at from users where id = ${a.agentId}) as updated`;
      assert.deepEqual(now, before, "no successful launch, session or profile change");
      const logged = await f.svc.db.sql`select outcome, message from launches
        order by id desc limit 2`;
      assert.deepEqual(logged.map((r) => r.outcome), ["agent_disabled", "agent_disabled"]);
      assert.equal(await loginCount(f, a.agentId), 0);

      // Enabled again: launches and sign-in work, and nothing more was ended.
      const enabled = await setDisabled(f, a.agentId, false);
      assert.equal(enabled.status, 200);
      assert.deepEqual(
        { ...(await enabled.json()), id: 0 },
        {
          id: 0,
          role: "agent",
          organization: "default",
          email: a.email,
          disabled: false,
          disabledAt: null,
          loginsEnded: 0,
        },
      );
      const back = await launch(f, { id: a.id, email: a.email });
      assert.equal(back.status, 200);
      await back.body?.cancel();
      const signIn = await postSignIn(f.svc, "/portal/login", {
        email: a.email,
        password: AGENT_PASSWORD,
      });
      assert.equal(signIn.status, 303);
      await signIn.body?.cancel();
    },
  );

  Deno.test(
    `disabled users: a pending reset link dies, and a login made in a race is refused [${backend.name}]`,
    opts,
    async () => {
      const f = await fixture();
      const a = await agentWithLogins(f);
      await askReset(f, a.email);
      const [pending] = await f.svc.db.sql`select count(*)::int as n from password_resets
        where user_id = ${a.agentId}`;
      assert.equal(pending.n, 1);
      assert.equal((await setDisabled(f, a.agentId, true)).status, 200);
      const [gone] = await f.svc.db.sql`select count(*)::int as n from password_resets
        where user_id = ${a.agentId}`;
      assert.equal(gone.n, 0, "the reset link ended with the logins");

      // A login row written after the disable (a sign-in that raced it) opens nothing.
      await f.svc.db.sql`insert into logins (token_hash, user_id, expires_at, kind)
        select token_hash, ${a.agentId}, now() + interval '1 hour', 'portal' from (select
          encode(sha256(convert_to(${a.cookie.split("=")[1]}, 'UTF8')), 'hex') as token_hash) t`;
      assert.equal(await loginCount(f, a.agentId), 1);
      const res = await f.svc.request("/portal/sessions", { headers: { Cookie: a.cookie } });
      assert.equal(res.status, 303);
      await res.body?.cancel();
    },
  );

  Deno.test(
    `disabled users: a disabled agent cannot be assigned a session [${backend.name}]`,
    opts,
    async () => {
      const f = await fixture();
      const a = await agentWithLogins(f);
      const b = await agentWithLogins(f);
      assert.equal((await setDisabled(f, b.agentId, true)).status, 200);
      const res = await f.svc.api("PATCH", `/api/v1/sessions/${a.sessionId}`, f.token, {
        assigneeId: b.agentId,
      });
      assert.equal(res.status, 400);
      const err = await res.json();
      // One answer for every id that is not an enabled agent of the session's organization
      // (issue 32: no probing), a disabled agent included.
      assert.equal(err.code, "invalid_assignee");
      assert.deepEqual(err.errors.map((e: { path: string; code: string }) => [e.path, e.code]), [
        ["assigneeId", "invalid_assignee"],
      ]);
      const transfer = await (await f.svc.request(`/portal/sessions/${a.sessionId}`, {
        headers: { Cookie: a.cookie },
      })).text();
      assert.ok(!transfer.includes(b.email), "not offered as a transfer target");
      assert.equal((await setDisabled(f, a.agentId, true)).status, 200);
      const kept = await f.svc.api("GET", `/api/v1/sessions/${a.sessionId}`, f.token);
      assert.equal((await kept.json()).assignee.id, a.agentId, "assigned sessions stay assigned");
    },
  );

  Deno.test(
    `disabled users: the API refuses bad bodies, unknown users and the last admin [${backend.name}]`,
    opts,
    async () => {
      const f = await fixture();
      const a = await agentWithLogins(f);
      const bad = await setDisabled(f, a.agentId, "yes");
      assert.equal(bad.status, 400);
      assert.deepEqual((await bad.json()).errors, [{
        path: "disabled",
        code: "invalid_type",
        message: "expected true (disable the user) or false (enable)",
      }]);
      const extra = await f.svc.api("PATCH", `/api/v1/admin/users/${a.agentId}`, f.token, {
        disabled: true,
        role: "admin",
      });
      assert.equal(extra.status, 400);
      await extra.body?.cancel();
      assert.equal(await loginCount(f, a.agentId), 2, "refused requests change nothing");
      const missing = await setDisabled(f, 999_999_999, true);
      assert.equal(missing.status, 404);
      assert.equal((await missing.json()).code, "user_not_found");

      const admins = await f.svc.db.sql`select id from users
        where role = 'admin' and disabled_at is null`;
      assert.equal(admins.length, 1, "only the configured administrator");
      const last = await setDisabled(f, Number(admins[0].id), true);
      assert.equal(last.status, 409);
      assert.equal((await last.json()).code, "last_admin");
      const [still] = await f.svc.db.sql`select disabled_at from users where id = ${admins[0].id}`;
      assert.equal(still.disabledAt, null);
    },
  );

  Deno.test(
    `disabled users: the admin screens disable and enable, never one's own account [${backend.name}]`,
    opts,
    async () => {
      const f = await fixture();
      const a = await agentWithLogins(f);
      const signed = await postSignIn(f.svc, "/admin/login", ADMIN);
      assert.equal(signed.status, 303);
      const cookie = signed.headers.get("Set-Cookie")!.split(";")[0];
      const page = async (id: number | string) => {
        const res = await f.svc.request(`/admin/users/${id}`, { headers: { Cookie: cookie } });
        assert.equal(res.status, 200);
        return await res.text();
      };
      const html = await page(a.agentId);
      assert.match(html, /<strong>Enabled\.<\/strong>/);
      const csrf = html.match(/name="csrf" value="([^"]+)"/)![1];
      const post = (id: number | string, disabled: string, token = csrf) =>
        f.svc.request(`/admin/users/${id}/access`, {
          method: "POST",
          headers: { Cookie: cookie },
          body: new URLSearchParams({ csrf: token, disabled }),
        });

      const forged = await post(a.agentId, "true", "not-the-token");
      assert.equal(forged.status, 403, "the form needs the login's CSRF token");
      await forged.body?.cancel();
      assert.equal(await loginCount(f, a.agentId), 2);

      const done = await post(a.agentId, "true");
      assert.equal(done.status, 200);
      const text = await done.text();
      assert.match(text, /User disabled; 2 live logins ended\./);
      assert.match(text, /<strong>Disabled<\/strong> since/);
      assert.equal(await loginCount(f, a.agentId), 0);
      const list = await (await f.svc.request(
        `/admin/users?q=${encodeURIComponent(a.email)}`,
        { headers: { Cookie: cookie } },
      )).text();
      assert.match(list, /<td>disabled<\/td>/);

      const again = await post(a.agentId, "false");
      assert.equal(again.status, 200);
      assert.match(await again.text(), /User enabled\./);

      const [me] = await f.svc.db.sql`select id from users where email = ${ADMIN.email}`;
      const self = await post(me.id, "true");
      assert.equal(self.status, 409);
      assert.match(await self.text(), /You cannot disable your own account/);
      const still = await f.svc.request("/admin/apps", { headers: { Cookie: cookie } });
      assert.equal(still.status, 200, "the administrator is still signed in");
      await still.body?.cancel();
    },
  );
}
