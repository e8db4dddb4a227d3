/** Key rotation with an overlap: launches signed with the old key never fail until it ends. */
import assert from "node:assert/strict";
import { backends } from "../../helpers/db.ts";
import { startTestService, type TestService } from "../../helpers/service.ts";
import { sharedFixture, uniqueId } from "../../helpers/shared.ts";
import { createTestApp, signLaunch, type TestApp } from "../../helpers/launch.ts";
import { launchPayload } from "../../helpers/payload.ts";
import { postSignIn } from "../../helpers/sign_in.ts";

const opts = { sanitizeOps: false, sanitizeResources: false };

for (const backend of backends) {
  const service = sharedFixture(
    () =>
      startTestService(backend, {
        ADMIN_EMAIL: "root@example.com",
        ADMIN_PASSWORD: "root-password-0123456789",
      }),
    (svc: TestService) => svc.close(),
  );

  const launchWith = async (svc: TestService, app: TestApp, key: string) => {
    const res = await svc.request(`/portal/api/auth/app/${app.appName}`, {
      method: "POST",
      headers: { Accept: "application/json" },
      body: new URLSearchParams({
        signed_request: await signLaunch(launchPayload({ contactId: uniqueId("C") }), key),
      }),
    });
    return { status: res.status, body: await res.json() };
  };

  Deno.test(
    `key rotation: 200 launches with the old key across a rotation, zero failures until the overlap ends [${backend.name}]`,
    opts,
    async () => {
      const svc = await service();
      const token = await svc.adminToken();
      const app = await createTestApp(svc, token, uniqueId("rot"));
      const oldKey = app.apiKey;
      let rotated: { apiKey: string; previousKeyExpiresAt: string } | null = null;
      const statuses: number[] = [];
      for (let batch = 0; batch < 20; batch++) {
        if (batch === 5) {
          const res = await svc.api("POST", `/api/v1/admin/apps/${app.appName}/api-key`, token, {
            previousKeyValidSeconds: 3600,
          });
          assert.equal(res.status, 200);
          rotated = await res.json();
        }
        const results = await Promise.all(
          Array.from({ length: 10 }, () => launchWith(svc, app, oldKey)),
        );
        statuses.push(...results.map((r) => r.status));
      }
      assert.deepEqual(statuses, Array(200).fill(200), "zero failures during the overlap");
      assert.ok(rotated && rotated.apiKey !== oldKey);
      assert.ok(Date.parse(rotated!.previousKeyExpiresAt) > Date.now() + 3500_000);
      const fresh = await launchWith(svc, app, rotated!.apiKey);
      assert.equal(fresh.status, 200, "the new key works at once");
      const used = await svc.db.sql`select key_used, count(*)::int as n from launches
      where app_name = ${app.appName} and outcome = 'ok' group by key_used order by key_used`;
      assert.deepEqual(used.map((r) => r.keyUsed), ["current", "previous"]);
      const usage =
        (await (await svc.api("GET", `/api/v1/admin/apps/${app.appName}`, token)).json())
          .signingKeys;
      assert.ok(usage.previousLastUsedAt, "the old key's last use is visible");
      assert.ok(usage.currentLastUsedAt, "and the new key's");
      assert.equal(usage.previousExpiresAt, rotated!.previousKeyExpiresAt);
      const end = await svc.api(
        "DELETE",
        `/api/v1/admin/apps/${app.appName}/api-key/previous`,
        token,
      );
      assert.equal(end.status, 204);
      const after = await Promise.all(
        Array.from({ length: 5 }, () => launchWith(svc, app, oldKey)),
      );
      assert.deepEqual(after.map((r) => r.body.code), Array(5).fill("invalid_signature"));
      assert.equal((await launchWith(svc, app, rotated!.apiKey)).status, 200);
    },
  );

  Deno.test(
    `key rotation: previousKeyValidSeconds 0 revokes the old key at once [${backend.name}]`,
    opts,
    async () => {
      const svc = await service();
      const token = await svc.adminToken();
      const app = await createTestApp(svc, token, uniqueId("rot"));
      const res = await svc.api("POST", `/api/v1/admin/apps/${app.appName}/api-key`, token, {
        previousKeyValidSeconds: 0,
      });
      const body = await res.json();
      assert.equal(body.previousKeyExpiresAt, null);
      assert.equal((await launchWith(svc, app, app.apiKey)).body.code, "invalid_signature");
      assert.equal((await launchWith(svc, app, body.apiKey)).status, 200);
      const wrong = await svc.api(
        "POST",
        `/api/v1/admin/apps/${app.appName}/consumer-secret`,
        token,
      );
      assert.equal(wrong.status, 409, "a signed_request app has no consumer secret");
      await wrong.body?.cancel();
      const bad = await svc.api("POST", `/api/v1/admin/apps/${app.appName}/api-key`, token, {
        previousKeyValidSeconds: -1,
      });
      assert.equal(bad.status, 400);
      await bad.body?.cancel();
    },
  );

  Deno.test(
    `key rotation: without a body the old key stays valid for a week [${backend.name}]`,
    opts,
    async () => {
      const svc = await service();
      const token = await svc.adminToken();
      const app = await createTestApp(svc, token, uniqueId("rot"));
      const res = await svc.request(`/api/v1/admin/apps/${app.appName}/api-key`, {
        method: "POST",
        headers: { Authorization: `Bearer ${token}` },
      });
      assert.equal(res.status, 200);
      const body = await res.json();
      const week = Date.parse(body.previousKeyExpiresAt) - Date.now();
      assert.ok(week > 604_000_000 && week <= 604_800_000, `${week} ms`);
      assert.equal((await launchWith(svc, app, app.apiKey)).status, 200);
    },
  );

  Deno.test(
    `key rotation on the app's page: consumer secret rotated with an overlap, then revoked [${backend.name}]`,
    opts,
    async () => {
      const svc = await service();
      const token = await svc.adminToken();
      const oldSecret = "consumer-secret-before-0123";
      const app = await createTestApp(svc, token, uniqueId("rs"), {
        authType: "oauth2_signed_request",
        consumerKey: "ck",
        consumerSecret: oldSecret,
      });
      const signIn = await postSignIn(svc, "/admin/login", {
        email: "root@example.com",
        password: "root-password-0123456789",
      });
      const cookie = signIn.headers.get("Set-Cookie")!.split(";")[0];
      await signIn.body?.cancel();
      const page = await (await svc.request(`/admin/apps/${app.appName}`, {
        headers: { Cookie: cookie },
      })).text();
      assert.match(page, />Rotate consumer secret</);
      const csrf = page.match(/name="csrf" value="([^"]+)"/)![1];
      const post = async (action: string) =>
        await (await svc.request(`/admin/apps/${app.appName}/${action}`, {
          method: "POST",
          headers: { Cookie: cookie },
          body: new URLSearchParams({ csrf }),
        })).text();
      const rotated = await post("rotate-key");
      const newSecret = rotated.match(/data-testid="new-secret">([^<]+)</)![1];
      assert.match(rotated, /New consumer secret \(shown once/);
      assert.match(rotated, /previous key keeps verifying until/);
      assert.equal((await launchWith(svc, app, newSecret)).status, 200);
      assert.equal((await launchWith(svc, app, oldSecret)).status, 200, "the overlap");
      assert.match(rotated, />Revoke previous key now</);
      const ended = await post("end-key-overlap");
      assert.match(ended, /previous key no longer verifies/);
      assert.equal((await launchWith(svc, app, oldSecret)).status, 401);
      assert.equal((await launchWith(svc, app, newSecret)).status, 200);
    },
  );
}
