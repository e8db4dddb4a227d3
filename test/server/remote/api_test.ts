/**
 * Remote support without a browser: the REST API (201 invitation, list with statuses, scopes,
 * app scope), the code entry (wrong and expired answer alike, limited like sign-in), the ICE
 * configuration (coturn REST credentials), the invitation e-mail in the agent's language, the
 * configuration's checks and housekeeping.
 */
import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import { backends, pglite } from "../../helpers/db.ts";
import { appClientToken, createTestApp } from "../../helpers/launch.ts";
import { loadConfig } from "../../../server/config.ts";
import { cleanUp } from "../../../server/housekeeping.ts";
import { landAgent, remoteService } from "./fixture.ts";
import { withoutJoinSecrets } from "../../../server/api/deliveries_routes.ts";

for (const backend of backends) {
  Deno.test({
    name: `remote API (${backend.name}): invitations, list, scopes, codes, ICE, mail`,
    sanitizeOps: false,
    sanitizeResources: false,
    async fn(t) {
      const { svc, admin, app } = await remoteService(backend, {
        REMOTE_INVITE_TTL_MINUTES: "5",
        STUN_URLS: "stun:stun.example.com:3478",
        TURN_URLS: "turn:turn.example.com:3478?transport=udp,turns:turn.example.com:443",
        TURN_SECRET: "coturn-static-auth-secret",
      });
      try {
        const agent = await landAgent(svc, app, { locale: "fr" });
        const sessionId = agent.sessionId;

        await t.step("POST answers 201 with link, code and expiry", async () => {
          const res = await svc.api("POST", `/api/v1/sessions/${sessionId}/remote`, admin);
          assert.equal(res.status, 201);
          const body = await res.json();
          assert.deepEqual(Object.keys(body).sort(), [
            "code",
            "expiresAt",
            "id",
            "joinUrl",
            "status",
          ]);
          assert.match(body.joinUrl, new RegExp(`^${svc.base}/portal/r/[A-Za-z0-9_-]{43}$`));
          assert.match(body.code, /^\d{9}$/);
          assert.equal(body.status, "invited");
          const minutes = (Date.parse(body.expiresAt) - Date.now()) / 60_000;
          assert.ok(minutes > 4.9 && minutes <= 5, `${minutes} minutes`);
          const stored = await svc.db.sql`select token_hash, code_hash from remote_sessions
            where id = ${body.id}`;
          const token = body.joinUrl.split("/").pop();
          assert.ok(!JSON.stringify(stored).includes(token), "the token is not stored in clear");
          assert.ok(!JSON.stringify(stored).includes(body.code), "nor the code");
        });

        await t.step("GET lists statuses, expired included", async () => {
          await svc.db.sql`update remote_sessions set expires_at = now() - interval '1 second'
            where id = ${agent.remoteId}`;
          const res = await svc.api("GET", `/api/v1/sessions/${sessionId}/remote`, admin);
          assert.equal(res.status, 200);
          const items = (await res.json()).items;
          assert.deepEqual(items.map((r: { status: string }) => r.status), ["invited", "expired"]);
          assert.equal(items[1].invitedVia, "launch");
          assert.equal(items[0].invitedVia, "api");
          assert.equal(items[0].durationSeconds, null);
          const gone = await fetch(agent.joinUrl);
          assert.equal(gone.status, 410);
          await gone.body?.cancel();
        });

        await t.step("scopes and the caller's app", async () => {
          const readOnly = await svc.adminToken("sessions:read");
          const post = await svc.api("POST", `/api/v1/sessions/${sessionId}/remote`, readOnly);
          assert.equal(post.status, 403);
          const other = await createTestApp(svc, admin, "other");
          const foreign = await appClientToken(svc, other);
          for (const method of ["GET", "POST"]) {
            const res = await svc.api(method, `/api/v1/sessions/${sessionId}/remote`, foreign);
            assert.equal(res.status, 404, method);
            assert.equal((await res.json()).code, "session_not_found");
          }
          const own = await appClientToken(svc, app);
          const mine = await svc.api("GET", `/api/v1/sessions/${sessionId}/remote`, own);
          assert.equal(mine.status, 200);
          await mine.body?.cancel();
          const none = await svc.api("GET", `/api/v1/sessions/999999/remote`, admin);
          assert.equal(none.status, 404);
        });

        await t.step(
          "codes: right, wrong, expired alike; limited per code and address",
          async () => {
            const fresh =
              await (await svc.api("POST", `/api/v1/sessions/${sessionId}/remote`, admin))
                .json();
            const post = (code: string) =>
              fetch(`${svc.base}/portal/r`, {
                method: "POST",
                body: new URLSearchParams({ code }),
                redirect: "manual",
              });
            const ok = await post(`${fresh.code.slice(0, 3)} ${fresh.code.slice(3)}`);
            assert.equal(ok.status, 303);
            assert.equal(new URL(ok.headers.get("Location")!, svc.base).href, fresh.joinUrl);
            const wrong = await post("123456789");
            const wrongText = await wrong.text();
            const expired = await post(agent.code);
            const expiredText = await expired.text();
            assert.equal(wrong.status, 400);
            assert.equal(expired.status, 400);
            const alert = (html: string) => html.match(/role="alert"[^>]*>([^<]+)</)?.[1];
            assert.equal(alert(wrongText), alert(expiredText));
            for (let i = 0; i < 4; i++) await (await post("123456789")).body?.cancel();
            const limited = await post("123456789");
            assert.equal(limited.status, 429);
            assert.ok(Number(limited.headers.get("Retry-After")) >= 1);
            await limited.body?.cancel();
          },
        );

        await t.step("ICE: coturn REST credentials for a join token or a login", async () => {
          const fresh = await (await svc.api("POST", `/api/v1/sessions/${sessionId}/remote`, admin))
            .json();
          const token = fresh.joinUrl.split("/").pop();
          const res = await fetch(`${svc.base}/portal/remote/ice?token=${token}`);
          assert.equal(res.status, 200);
          const ice = await res.json();
          assert.equal(ice.iceTransportPolicy, "all");
          assert.deepEqual(ice.iceServers[0], { urls: ["stun:stun.example.com:3478"] });
          const turn = ice.iceServers[1];
          assert.equal(turn.urls.length, 2);
          const [expiry, user] = turn.username.split(":");
          assert.equal(user, `customer-${fresh.id}`);
          assert.ok(Math.abs(Number(expiry) - Date.now() / 1000 - 3600) < 10);
          const mac = createHmac("sha1", "coturn-static-auth-secret").update(turn.username)
            .digest("base64");
          assert.equal(turn.credential, mac);
          const agentIce = await fetch(`${svc.base}/portal/remote/ice`, {
            headers: { Cookie: agent.cookie },
          });
          assert.match((await agentIce.json()).iceServers[1].username, /:agent-\d+$/);
          const anonymous = await fetch(`${svc.base}/portal/remote/ice`);
          assert.equal(anonymous.status, 401);
          await anonymous.body?.cancel();
          const bad = await fetch(`${svc.base}/portal/remote/ice?token=${"A".repeat(43)}`);
          assert.equal(bad.status, 404);
          await bad.body?.cancel();
        });

        await t.step("the agent e-mails the link in the page's language", async () => {
          const page = await fetch(
            `${svc.base}/portal/sessions/${sessionId}/remote`,
            { headers: { Cookie: agent.cookie } },
          );
          const html = await page.text();
          const rid = html.match(/\/remote\/(\d+)\/mail/)![1];
          const res = await fetch(`${svc.base}/portal/sessions/${sessionId}/remote/${rid}/mail`, {
            method: "POST",
            headers: { Cookie: agent.cookie, Origin: svc.base },
            body: new URLSearchParams({ csrf: agent.csrf }),
            redirect: "manual",
          });
          assert.equal(res.status, 303, await res.text());
          const [mail] = await svc.db
            .sql`select recipient, subject, text_body as text from mail_outbox
            order by id desc limit 1`;
          assert.equal(mail.recipient, "grace@example.org");
          assert.match(mail.subject, /partager votre écran/);
          assert.match(mail.text, /\/portal\/r\/[A-Za-z0-9_-]{43}/);
        });
      } finally {
        await svc.close();
      }
    },
  });
}

Deno.test("remote configuration: defaults and every bad value named", () => {
  const base = { DATA_DIR: "/tmp/x" };
  const config = loadConfig(base);
  assert.equal(config.remote.inviteTtlMinutes, 15);
  assert.deepEqual(config.remote.turnUrls, []);
  assert.equal(config.remote.relayOnly, false);
  const bad = [
    [{ REMOTE_INVITE_TTL_MINUTES: "0" }, /REMOTE_INVITE_TTL_MINUTES: expected a whole number/],
    [{ STUN_URLS: "http://x" }, /STUN_URLS: expected comma-separated stun/],
    [{ TURN_URLS: "turn:a:3478,foo" }, /TURN_URLS: .*not: foo/],
    [{ REMOTE_RELAY_ONLY: "true" }, /REMOTE_RELAY_ONLY: needs TURN_URLS/],
    [{ TURN_SECRET: "s" }, /TURN_SECRET: set TURN_URLS too/],
    [{ REMOTE_ICE_ADDRESSES: "localhost" }, /REMOTE_ICE_ADDRESSES: expected comma-separated IP/],
  ] as const;
  for (const [env, message] of bad) {
    assert.throws(() => loadConfig({ ...base, ...env }), message);
  }
});

Deno.test({
  name: "remote housekeeping: unjoined invitations expire, old signaling messages go",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const { svc, app } = await remoteService(pglite);
    try {
      const agent = await landAgent(svc, app);
      await svc.db.sql`insert into remote_signals (remote_id, seq, sender, body, created_at)
        values (${agent.remoteId}, 1, 'agent', '{}', now() - interval '2 days'),
          (${agent.remoteId}, 2, 'agent', '{}', now())`;
      await svc.db.sql`update remote_sessions set expires_at = now() - interval '1 minute'`;
      await cleanUp(svc.db.sql, svc.deps.config);
      const [row] = await svc.db.sql`select status, ended_by from remote_sessions`;
      assert.deepEqual({ ...row }, { status: "expired", endedBy: "expiry" });
      const [{ n }] = await svc.db.sql`select count(*)::int as n from remote_signals`;
      assert.equal(n, 1);
    } finally {
      await svc.close();
    }
  },
});

Deno.test("deliveries never list a live join link", () => {
  const invited = {
    type: "remote.invited",
    data: { remoteId: 1, joinUrl: "https://p.example/portal/r/abcdef", code: "123456789" },
  };
  const shown = withoutJoinSecrets(invited).data as Record<string, unknown>;
  assert.equal(shown.joinUrl, "https://p.example/portal/r/…");
  assert.equal(shown.code, "•••••••••");
  const other = { type: "session.closed", data: { code: "kept" } };
  assert.equal(withoutJoinSecrets(other), other);
});
