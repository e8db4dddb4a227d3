import assert from "node:assert/strict";
import { backends } from "../../helpers/db.ts";
import { createTestApp } from "../../helpers/launch.ts";
import { ADMIN_CLIENT, startTestService } from "../../helpers/service.ts";

for (const backend of backends) {
  Deno.test({
    name: `introspection RFC 7662 [${backend.name}]`,
    sanitizeOps: false,
    sanitizeResources: false,
    async fn(t) {
      const svc = await startTestService(backend);
      try {
        const admin = await svc.adminToken();
        const app = await createTestApp(svc, admin);
        const appToken = async () => {
          const res = await svc.request("/api/v1/oauth2/token", {
            method: "POST",
            body: new URLSearchParams({
              grant_type: "client_credentials",
              client_id: app.clientId,
              client_secret: app.clientSecret,
              scope: "sessions:read",
            }),
          });
          return (await res.json()).access_token as string;
        };
        const introspect = async (token: string, client = {
          id: app.clientId,
          secret: app.clientSecret,
        }) => {
          const res = await svc.request("/api/v1/oauth2/introspect", {
            method: "POST",
            body: new URLSearchParams({
              token,
              client_id: client.id,
              client_secret: client.secret,
            }),
          });
          return { status: res.status, body: await res.json(), res };
        };

        await t.step("a client's own live token is active with its grant", async () => {
          const token = await appToken();
          const before = Math.floor(Date.now() / 1000);
          const { status, body, res } = await introspect(token);
          assert.equal(status, 200);
          assert.equal(res.headers.get("Cache-Control"), "no-store");
          assert.deepEqual(Object.keys(body).sort(), [
            "active",
            "client_id",
            "exp",
            "iat",
            "scope",
            "token_type",
          ]);
          assert.equal(body.active, true);
          assert.equal(body.scope, "sessions:read");
          assert.equal(body.client_id, app.clientId);
          assert.equal(body.token_type, "Bearer");
          assert.ok(Math.abs(body.iat - before) <= 5);
          assert.equal(body.exp - body.iat, 3600);
        });

        await t.step("unknown, revoked and others' tokens are only {active: false}", async () => {
          assert.deepEqual((await introspect("no-such-token")).body, { active: false });
          const token = await appToken();
          await svc.request("/api/v1/oauth2/revoke", {
            method: "POST",
            body: new URLSearchParams({
              token,
              client_id: app.clientId,
              client_secret: app.clientSecret,
            }),
          }).then((r) => r.body?.cancel());
          assert.deepEqual((await introspect(token)).body, { active: false });
          const other = await createTestApp(svc, admin, "helpdesk");
          const mine = await appToken();
          assert.deepEqual(
            (await introspect(mine, { id: other.clientId, secret: other.clientSecret })).body,
            { active: false },
            "another app's client cannot see this token",
          );
          const byAdmin = await introspect(mine, {
            id: ADMIN_CLIENT.id,
            secret: ADMIN_CLIENT.secret,
          });
          assert.equal(byAdmin.body.active, true, "a client allowed the admin scope sees any");
        });

        await t.step("the caller must authenticate and send a token", async () => {
          const wrong = await introspect("x", { id: app.clientId, secret: "wrong-secret" });
          assert.equal(wrong.status, 400);
          assert.equal(wrong.body.error, "invalid_client");
          const basic = await svc.request("/api/v1/oauth2/introspect", {
            method: "POST",
            headers: { Authorization: "Basic " + btoa(`${app.clientId}:nope`) },
            body: new URLSearchParams({ token: "x" }),
          });
          assert.equal(basic.status, 401);
          assert.match(basic.headers.get("WWW-Authenticate")!, /^Basic/);
          await basic.body?.cancel();
          const missing = await svc.request("/api/v1/oauth2/introspect", {
            method: "POST",
            body: new URLSearchParams({ client_id: app.clientId, client_secret: app.clientSecret }),
          });
          assert.equal(missing.status, 400);
          assert.equal((await missing.json()).error, "invalid_request");
          const meta = await (await svc.request("/.well-known/oauth-authorization-server")).json();
          assert.equal(meta.introspection_endpoint, "http://portal.test/api/v1/oauth2/introspect");
        });
      } finally {
        await svc.close();
      }
    },
  });
}
