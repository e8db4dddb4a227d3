/**
 * A change to what an app's client tokens grant takes effect at once in the process that made it,
 * even while those tokens sit in the validation cache (TOKEN_CACHE_SECONDS is long here).
 */
import assert from "node:assert/strict";
import { backends } from "../../helpers/db.ts";
import { sharedFixture, uniqueId } from "../../helpers/shared.ts";
import { startTestService, type TestService } from "../../helpers/service.ts";
import { appClientToken, createTestApp, type TestApp } from "../../helpers/launch.ts";
import { getAs, postAs, signInAdmin } from "../../helpers/admin_screens.ts";

const ADMIN = { email: "root@example.com", password: "admin-password-123" };

/** The status of one REST call with `token` (the body is dropped). */
async function statusWith(svc: TestService, token: string): Promise<number> {
  const res = await svc.api("GET", "/api/v1/sessions", token);
  await res.body?.cancel();
  return res.status;
}

/** A new app and a token of its client that has been used once (so it is cached). */
async function cachedToken(
  svc: TestService,
): Promise<{ app: TestApp; token: string; admin: string }> {
  const admin = await svc.adminToken();
  const app = await createTestApp(svc, admin, uniqueId("rev-").toLowerCase());
  const token = await appClientToken(svc, app);
  assert.equal(await statusWith(svc, token), 200);
  assert.equal(await statusWith(svc, token), 200, "still valid: cached");
  return { app, token, admin };
}

for (const backend of backends) {
  const service = sharedFixture(
    () =>
      startTestService(backend, {
        TOKEN_CACHE_SECONDS: "300",
        ADMIN_EMAIL: ADMIN.email,
        ADMIN_PASSWORD: ADMIN.password,
      }),
    (svc) => svc.close(),
  );
  const test = (name: string, fn: (svc: TestService) => Promise<void>) =>
    Deno.test({
      name: `cached tokens ${name} [${backend.name}]`,
      sanitizeOps: false,
      sanitizeResources: false,
      fn: async () => await fn(await service()),
    });

  test("stop working at once when the app is disabled (API)", async (svc) => {
    const { app, token, admin } = await cachedToken(svc);
    const res = await svc.api("PATCH", `/api/v1/admin/apps/${app.appName}`, admin, {
      enabled: false,
    });
    assert.equal(res.status, 200);
    await res.body?.cancel();
    assert.equal(await statusWith(svc, token), 401);
  });

  test("stop working at once when the app is disabled (screen)", async (svc) => {
    const { app, token } = await cachedToken(svc);
    const signedIn = await signInAdmin(svc, ADMIN);
    const res = await postAs(svc, signedIn, `/admin/apps/${app.appName}/enabled`, {
      enabled: "off",
    });
    assert.equal(res.status, 303);
    await res.body?.cancel();
    const page = await getAs(svc, signedIn, `/admin/apps/${app.appName}`);
    assert.match(await page.text(), /<th scope="row">Enabled<\/th>\s*<td>no<\/td>/);
    assert.equal(await statusWith(svc, token), 401);
  });

  test("work again once the app is re-enabled", async (svc) => {
    const { app, token, admin } = await cachedToken(svc);
    for (const enabled of [false, true]) {
      const res = await svc.api("PATCH", `/api/v1/admin/apps/${app.appName}`, admin, { enabled });
      assert.equal(res.status, 200);
      await res.body?.cancel();
    }
    assert.equal(await statusWith(svc, token), 200);
  });

  test("lose a scope at once when the client's scopes change", async (svc) => {
    const { app, token, admin } = await cachedToken(svc);
    const res = await svc.api("PATCH", `/api/v1/admin/apps/${app.appName}`, admin, {
      clientScopes: ["sessions:write"],
    });
    assert.equal(res.status, 200);
    await res.body?.cancel();
    assert.equal(await statusWith(svc, token), 403);
  });

  test("stop working at once when the client secret is rotated", async (svc) => {
    const { app, token, admin } = await cachedToken(svc);
    const res = await svc.api("POST", `/api/v1/admin/apps/${app.appName}/client-secret`, admin);
    assert.equal(res.status, 200);
    await res.body?.cancel();
    assert.equal(await statusWith(svc, token), 401);
  });

  test("stop working at once when the app is deleted", async (svc) => {
    const { app, token, admin } = await cachedToken(svc);
    const res = await svc.api("DELETE", `/api/v1/admin/apps/${app.appName}`, admin);
    assert.equal(res.status, 204);
    assert.equal(await statusWith(svc, token), 401);
  });

  test("keep working when an unrelated field of the app changes", async (svc) => {
    const { app, token, admin } = await cachedToken(svc);
    const res = await svc.api("PATCH", `/api/v1/admin/apps/${app.appName}`, admin, {
      name: "Renamed",
    });
    assert.equal(res.status, 200);
    await res.body?.cancel();
    assert.equal(await statusWith(svc, token), 200);
  });
}
