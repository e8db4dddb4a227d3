/** An app's replay policy through the admin API and the app form. */
import assert from "node:assert/strict";
import { backends } from "../../helpers/db.ts";
import { startTestService, type TestService } from "../../helpers/service.ts";
import { sharedFixture, uniqueId } from "../../helpers/shared.ts";
import { createTestApp } from "../../helpers/launch.ts";
import { launchPayload } from "../../helpers/payload.ts";
import { signPayload } from "../../../server/launch/signed_request.ts";
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

  Deno.test(
    `admin API: new apps require replay protection; PATCH changes it [${backend.name}]`,
    opts,
    async () => {
      const svc = await service();
      const token = await svc.adminToken();
      const app = await createTestApp(svc, token, uniqueId("rp"));
      const got = await (await svc.api("GET", `/api/v1/admin/apps/${app.appName}`, token)).json();
      assert.deepEqual([got.replayProtection, got.maxAgeSeconds], ["required", 300]);
      // A request signed the seed's way, without issuedAt.
      const send = async () => {
        const res = await svc.request(`/portal/api/auth/app/${app.appName}`, {
          method: "POST",
          headers: { Accept: "application/json" },
          body: new URLSearchParams({
            signed_request: await signPayload(JSON.stringify(launchPayload()), app.apiKey),
          }),
        });
        return { status: res.status, body: await res.json() };
      };
      assert.equal((await send()).body.code, "issued_at_required");
      const patched = await svc.api("PATCH", `/api/v1/admin/apps/${app.appName}`, token, {
        replayProtection: "optional",
        maxAgeSeconds: 120,
      });
      const body = await patched.json();
      assert.deepEqual([body.replayProtection, body.maxAgeSeconds], ["optional", 120]);
      assert.equal((await send()).status, 200, "a legacy request is accepted under optional");
      const bad = await svc.api("PATCH", `/api/v1/admin/apps/${app.appName}`, token, {
        replayProtection: "sometimes",
        maxAgeSeconds: 20,
      });
      assert.equal(bad.status, 400);
      const errors = (await bad.json()).errors.map((e: { path: string }) => e.path).sort();
      assert.deepEqual(errors, ["maxAgeSeconds", "replayProtection"]);
    },
  );

  Deno.test(
    `admin screens: the app form sets the replay policy [${backend.name}]`,
    opts,
    async () => {
      const svc = await service();
      const app = await createTestApp(svc, await svc.adminToken(), uniqueId("rs"));
      const signIn = await postSignIn(svc, "/admin/login", {
        email: "root@example.com",
        password: "root-password-0123456789",
      });
      const cookie = signIn.headers.get("Set-Cookie")!.split(";")[0];
      const edit = await (await svc.request(`/admin/apps/${app.appName}/edit`, {
        headers: { Cookie: cookie },
      })).text();
      assert.match(edit, /name="replayProtection"/);
      assert.match(edit, /name="maxAgeSeconds"[^>]*value="300"/);
    },
  );
}
