import assert from "node:assert/strict";
import { backends } from "../../helpers/db.ts";
import { startTestService } from "../../helpers/service.ts";
import { AuthService } from "../../../server/oauth/auth_service.ts";

for (const backend of backends) {
  Deno.test({
    name: `bearer middleware RFC 6750 cases [${backend.name}]`,
    sanitizeOps: false,
    sanitizeResources: false,
    async fn(t) {
      let queries = 0;
      const svc = await startTestService(backend, {}, { onQuery: () => queries++ });
      const path = "/api/v1/admin/generate-token";
      try {
        await t.step("no Authorization header: 401 with only the realm", async () => {
          const res = await svc.request(path);
          assert.equal(res.status, 401);
          assert.equal(res.headers.get("WWW-Authenticate"), 'Bearer realm="api"');
          await res.body?.cancel();
        });

        await t.step("another scheme counts as no token", async () => {
          const res = await svc.request(path, { headers: { Authorization: "Basic YTpi" } });
          assert.equal(res.status, 401);
          assert.equal(res.headers.get("WWW-Authenticate"), 'Bearer realm="api"');
          await res.body?.cancel();
        });

        await t.step("a malformed bearer value is 400 invalid_request", async () => {
          const res = await svc.request(path, { headers: { Authorization: "Bearer a b" } });
          assert.equal(res.status, 400);
          assert.match(res.headers.get("WWW-Authenticate")!, /error="invalid_request"/);
          await res.body?.cancel();
        });

        await t.step("an unknown token is 401 invalid_token", async () => {
          const res = await svc.api("GET", path, "bm90LWEtdG9rZW4");
          assert.equal(res.status, 401);
          assert.match(res.headers.get("WWW-Authenticate")!, /error="invalid_token"/);
          assert.equal(
            (await res.json()).message,
            "The access token is invalid, expired or revoked",
          );
        });

        await t.step("the scheme is case-insensitive", async () => {
          const token = await svc.adminToken();
          const res = await svc.request(path, { headers: { Authorization: `bEaReR ${token}` } });
          assert.equal(res.status, 200);
          assert.match((await res.json()).token, /^[A-Za-z0-9]{32}$/);
        });

        await t.step("a missing scope is 403 insufficient_scope naming it", async () => {
          const token = await svc.adminToken("sessions:read");
          const res = await svc.api("GET", path, token);
          assert.equal(res.status, 403);
          assert.equal(
            res.headers.get("WWW-Authenticate"),
            'Bearer realm="api", error="insufficient_scope", scope="admin"',
          );
          await res.body?.cancel();
        });

        await t.step("an expired token is 401 invalid_token", async () => {
          const token = await svc.adminToken();
          await svc.db.sql`update access_tokens set expires_at = now() - interval '1 second'`;
          const res = await svc.api("GET", path, token);
          assert.equal(res.status, 401);
          assert.match(res.headers.get("WWW-Authenticate")!, /error="invalid_token"/);
          await res.body?.cancel();
        });

        await t.step("repeated requests with one token cost no database round trip", async () => {
          const token = await svc.adminToken();
          await (await svc.api("GET", path, token)).body?.cancel();
          const before = queries;
          for (let i = 0; i < 10; i++) {
            assert.equal((await svc.api("GET", path, token)).status, 200);
          }
          assert.equal(queries, before);
        });
      } finally {
        await svc.close();
      }
    },
  });

  Deno.test({
    name:
      `auth service cache honours revocation within its window and stays bounded [${backend.name}]`,
    sanitizeOps: false,
    sanitizeResources: false,
    async fn() {
      const svc = await startTestService(backend);
      try {
        let now = Date.now();
        const auth = new AuthService(svc.db.sql, {
          tokenTtlSeconds: 3600,
          cacheSeconds: 5,
          maxEntries: 3,
          now: () => now,
        });
        const [client] = await svc.db.sql`select id from api_clients limit 1`;
        const first = await auth.issue(client.id, ["admin"]);
        assert.ok(await auth.validate(first.accessToken));
        // Revoked by another process: this one keeps its cached answer until the window ends.
        await svc.db.sql`update access_tokens set revoked_at = now()`;
        assert.ok(await auth.validate(first.accessToken));
        now += 5_001;
        assert.equal(await auth.validate(first.accessToken), null);

        for (let i = 0; i < 5; i++) {
          const issued = await auth.issue(client.id, ["admin"]);
          assert.ok(await auth.validate(issued.accessToken));
        }
        assert.equal(auth.cacheSize, 3);
      } finally {
        await svc.close();
      }
    },
  });
}
