/** Tokens follow the decisions made after they were issued: client scopes and the app's state. */
import assert from "node:assert/strict";
import { backends } from "../../helpers/db.ts";
import { startTestService, type TestService } from "../../helpers/service.ts";
import { sharedFixture, uniqueId } from "../../helpers/shared.ts";
import { createTestApp } from "../../helpers/launch.ts";

const opts = { sanitizeOps: false, sanitizeResources: false };

for (const backend of backends) {
  // No validation cache: each request sees the database (the cache window is TOKEN_CACHE_SECONDS).
  const service = sharedFixture(
    () => startTestService(backend, { TOKEN_CACHE_SECONDS: "0" }),
    (svc: TestService) => svc.close(),
  );

  const appToken = async (svc: TestService, scopes: string[]) => {
    const admin = await svc.adminToken();
    const app = await createTestApp(svc, admin, uniqueId("tk"), { clientScopes: scopes });
    const res = await svc.request("/api/v1/oauth2/token", {
      method: "POST",
      body: new URLSearchParams({
        grant_type: "client_credentials",
        client_id: app.clientId,
        client_secret: app.clientSecret,
      }),
    });
    assert.equal(res.status, 200);
    return { app, admin, token: (await res.json()).access_token as string };
  };

  Deno.test(
    `tokens: reducing a client's scopes ends a live token's use of them [${backend.name}]`,
    opts,
    async () => {
      const svc = await service();
      const { app, admin, token } = await appToken(svc, ["sessions:read", "sessions:write"]);
      assert.equal((await svc.api("GET", "/api/v1/sessions", token)).status, 200);
      const patched = await svc.api("PATCH", `/api/v1/admin/apps/${app.appName}`, admin, {
        clientScopes: ["sessions:write"],
      });
      assert.equal(patched.status, 200);
      await patched.body?.cancel();
      const after = await svc.api("GET", "/api/v1/sessions", token);
      assert.equal(after.status, 403, "sessions:read was taken away");
      await after.body?.cancel();
    },
  );

  Deno.test(
    `tokens: disabling an app ends its tokens and refuses new ones [${backend.name}]`,
    opts,
    async () => {
      const svc = await service();
      const { app, admin, token } = await appToken(svc, ["sessions:read"]);
      const patched = await svc.api("PATCH", `/api/v1/admin/apps/${app.appName}`, admin, {
        enabled: false,
      });
      await patched.body?.cancel();
      const read = await svc.api("GET", "/api/v1/sessions", token);
      assert.equal(read.status, 401);
      await read.body?.cancel();
      const again = await svc.request("/api/v1/oauth2/token", {
        method: "POST",
        body: new URLSearchParams({
          grant_type: "client_credentials",
          client_id: app.clientId,
          client_secret: app.clientSecret,
        }),
      });
      assert.equal(again.status, 400);
      assert.equal((await again.json()).error, "invalid_client");
    },
  );
}
