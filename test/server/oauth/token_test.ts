import assert from "node:assert/strict";
import { backends } from "../../helpers/db.ts";
import { ADMIN_CLIENT, startTestService, type TestService } from "../../helpers/service.ts";

const form = (params: Record<string, string>) => new URLSearchParams(params);
const basic = (id: string, secret: string) =>
  "Basic " + new TextEncoder().encode(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`)
    .toBase64();

async function token(svc: TestService, body: BodyInit, headers: Record<string, string> = {}) {
  const res = await svc.request("/api/v1/oauth2/token", { method: "POST", body, headers });
  return { res, json: await res.json().catch(() => null) };
}

/** An admin token, and the app `crm` created with it (its client id and secret). */
async function crmApp(svc: TestService) {
  const adminToken = await svc.adminToken();
  const created = await (await svc.api("POST", "/api/v1/admin/apps", adminToken, {
    appName: "crm",
    name: "CRM",
    authType: "signed_request",
  })).json();
  return { adminToken, created };
}

for (const backend of backends) {
  Deno.test({
    name: `token endpoint RFC 6749 cases [${backend.name}]`,
    sanitizeOps: false,
    sanitizeResources: false,
    async fn(t) {
      const svc = await startTestService(backend);
      try {
        const { created } = await crmApp(svc);
        const appClient = { id: created.clientId, secret: created.clientSecret };

        await t.step("client_secret_post issues a bearer token with no-store headers", async () => {
          const { res, json } = await token(
            svc,
            form({
              grant_type: "client_credentials",
              client_id: appClient.id,
              client_secret: appClient.secret,
            }),
          );
          assert.equal(res.status, 200);
          assert.equal(res.headers.get("Cache-Control"), "no-store");
          assert.equal(res.headers.get("Pragma"), "no-cache");
          assert.equal(json.token_type, "Bearer");
          assert.equal(json.expires_in, 3600);
          assert.equal(json.scope, "sessions:read sessions:write");
          assert.match(json.access_token, /^[A-Za-z0-9_-]{43}$/);
        });

        await t.step("client_secret_basic works too", async () => {
          const { res, json } = await token(svc, form({ grant_type: "client_credentials" }), {
            Authorization: basic(appClient.id, appClient.secret),
          });
          assert.equal(res.status, 200);
          assert.ok(json.access_token);
        });

        await t.step("scope narrows; an unknown or ungranted scope is invalid_scope", async () => {
          const ok = await token(
            svc,
            form({
              grant_type: "client_credentials",
              client_id: appClient.id,
              client_secret: appClient.secret,
              scope: "sessions:read",
            }),
          );
          assert.equal(ok.json.scope, "sessions:read");
          for (const scope of ["admin", "sessions:read nonsense", ""]) {
            const bad = await token(
              svc,
              form({
                grant_type: "client_credentials",
                client_id: appClient.id,
                client_secret: appClient.secret,
                scope,
              }),
            );
            assert.equal(bad.res.status, 400, scope);
            assert.equal(bad.json.error, "invalid_scope");
          }
        });

        await t.step("grant_type missing or unsupported", async () => {
          const missing = await token(svc, form({}), {
            Authorization: basic(appClient.id, appClient.secret),
          });
          assert.equal(missing.res.status, 400);
          assert.equal(missing.json.error, "invalid_request");
          const other = await token(svc, form({ grant_type: "password" }), {
            Authorization: basic(appClient.id, appClient.secret),
          });
          assert.equal(other.res.status, 400);
          assert.equal(other.json.error, "unsupported_grant_type");
        });

        await t.step("both authentication methods at once is invalid_request", async () => {
          const { res, json } = await token(
            svc,
            form({ grant_type: "client_credentials", client_secret: appClient.secret }),
            { Authorization: basic(appClient.id, appClient.secret) },
          );
          assert.equal(res.status, 400);
          assert.equal(json.error, "invalid_request");
        });

        await t.step("wrong content type and repeated parameters are invalid_request", async () => {
          const asJson = await token(
            svc,
            JSON.stringify({ grant_type: "client_credentials" }),
            { "Content-Type": "application/json" },
          );
          assert.equal(asJson.res.status, 400);
          assert.equal(asJson.json.error, "invalid_request");
          assert.match(asJson.json.error_description, /x-www-form-urlencoded/);
          const repeated = await token(
            svc,
            "grant_type=client_credentials&grant_type=client_credentials",
            {
              "Content-Type": "application/x-www-form-urlencoded",
              Authorization: basic(appClient.id, appClient.secret),
            },
          );
          assert.equal(repeated.json.error, "invalid_request");
          assert.match(repeated.json.error_description, /grant_type is repeated/);
          // RFC 6749 ignores parameters it does not name; an object's inherited key is one of them.
          for (const name of ["constructor", "toString", "__proto__", "hasOwnProperty"]) {
            const extra = await token(svc, `grant_type=client_credentials&${name}=1`, {
              "Content-Type": "application/x-www-form-urlencoded",
              Authorization: basic(appClient.id, appClient.secret),
            });
            assert.equal(extra.res.status, 200, `${name}: ${JSON.stringify(extra.json)}`);
          }
        });

        await t.step("unknown client and wrong secret get the same answer", async () => {
          const unknown = await token(
            svc,
            form({
              grant_type: "client_credentials",
              client_id: "nobody",
              client_secret: "whatever",
            }),
          );
          const wrong = await token(
            svc,
            form({
              grant_type: "client_credentials",
              client_id: appClient.id,
              client_secret: appClient.secret + "x",
            }),
          );
          assert.equal(unknown.res.status, 400);
          assert.equal(wrong.res.status, 400);
          assert.deepEqual(unknown.json, wrong.json);
          assert.equal(wrong.json.error, "invalid_client");
        });

        await t.step("invalid_client through Basic is 401 with WWW-Authenticate", async () => {
          const { res, json } = await token(svc, form({ grant_type: "client_credentials" }), {
            Authorization: basic(appClient.id, "wrong"),
          });
          assert.equal(res.status, 401);
          assert.match(res.headers.get("WWW-Authenticate")!, /^Basic realm=/);
          assert.equal(json.error, "invalid_client");
          const none = await token(svc, form({ grant_type: "client_credentials" }));
          assert.equal(none.res.status, 401);
          assert.equal(none.json.error, "invalid_client");
        });

        await t.step("a body over 16 KiB is 413", async () => {
          const { res } = await token(svc, form({ grant_type: "x".repeat(17 * 1024) }));
          assert.equal(res.status, 413);
        });

        await t.step(
          "revocation (RFC 7009) ends a token; other clients cannot revoke it",
          async () => {
            const issued = (await token(
              svc,
              form({
                grant_type: "client_credentials",
                client_id: ADMIN_CLIENT.id,
                client_secret: ADMIN_CLIENT.secret,
              }),
            )).json.access_token;
            const use = () => svc.api("GET", "/api/v1/admin/generate-token", issued);
            assert.equal((await use()).status, 200);
            const byOther = await svc.request("/api/v1/oauth2/revoke", {
              method: "POST",
              body: form({ token: issued }),
              headers: { Authorization: basic(appClient.id, appClient.secret) },
            });
            assert.equal(byOther.status, 200);
            assert.equal((await use()).status, 200);
            const missing = await svc.request("/api/v1/oauth2/revoke", {
              method: "POST",
              body: form({}),
              headers: { Authorization: basic(ADMIN_CLIENT.id, ADMIN_CLIENT.secret) },
            });
            assert.equal(missing.status, 400);
            assert.equal((await missing.json()).error, "invalid_request");
            const revoke = await svc.request("/api/v1/oauth2/revoke", {
              method: "POST",
              body: form({ token: issued, token_type_hint: "access_token" }),
              headers: { Authorization: basic(ADMIN_CLIENT.id, ADMIN_CLIENT.secret) },
            });
            assert.equal(revoke.status, 200);
            assert.match(revoke.headers.get("Content-Type")!, /^application\/json/);
            assert.deepEqual(await revoke.json(), {});
            const after = await use();
            assert.equal(after.status, 401);
            assert.match(after.headers.get("WWW-Authenticate")!, /error="invalid_token"/);
            const unknown = await svc.request("/api/v1/oauth2/revoke", {
              method: "POST",
              body: form({ token: "never-issued" }),
              headers: { Authorization: basic(ADMIN_CLIENT.id, ADMIN_CLIENT.secret) },
            });
            assert.equal(unknown.status, 200);
            assert.deepEqual(await unknown.json(), {});
          },
        );

        await t.step("RFC 8414 metadata names the endpoints under PUBLIC_URL", async () => {
          const res = await svc.request("/.well-known/oauth-authorization-server");
          const meta = await res.json();
          assert.equal(meta.issuer, "http://portal.test");
          assert.equal(meta.token_endpoint, "http://portal.test/api/v1/oauth2/token");
          assert.equal(meta.revocation_endpoint, "http://portal.test/api/v1/oauth2/revoke");
          assert.deepEqual(meta.grant_types_supported, ["client_credentials"]);
        });
      } finally {
        await svc.close();
      }
    },
  });
}

for (const backend of backends) {
  Deno.test({
    name:
      `a known client's token is one statement; rotation, scopes and disabling still hold [${backend.name}]`,
    sanitizeOps: false,
    sanitizeResources: false,
    async fn() {
      let queries = 0;
      const svc = await startTestService(backend, {}, { onQuery: () => queries++ });
      try {
        const { adminToken, created } = await crmApp(svc);
        const ask = (secret: string, scope?: string) =>
          token(
            svc,
            form({
              grant_type: "client_credentials",
              client_id: created.clientId,
              client_secret: secret,
              ...(scope === undefined ? {} : { scope }),
            }),
          );
        const counted = async (secret: string, scope?: string) => {
          const before = queries;
          const answer = await ask(secret, scope);
          return { ...answer, statements: queries - before };
        };
        const works = async (issued: string) =>
          (await svc.api("GET", "/api/v1/sessions?limit=1", issued)).status === 200;

        // First request: step by step (two statements after the one-statement try misses).
        const first = await counted(created.clientSecret);
        assert.equal(first.res.status, 200);
        const second = await counted(created.clientSecret);
        assert.equal(second.res.status, 200);
        assert.equal(second.statements, 1, "one statement for a client seen before");
        assert.equal(second.json.scope, "sessions:read sessions:write");
        assert.ok(await works(second.json.access_token));
        const narrowed = await counted(created.clientSecret, "sessions:read sessions:read");
        assert.equal(narrowed.statements, 1);
        assert.equal(narrowed.json.scope, "sessions:read");

        // A scope the client may not use is still refused with the reason.
        const admin = await ask(created.clientSecret, "admin");
        assert.equal(admin.res.status, 400);
        assert.equal(admin.json.error, "invalid_scope");
        assert.match(admin.json.error_description, /admin/);
        const wrong = await ask(created.clientSecret + "x");
        assert.equal(wrong.res.status, 400);
        assert.equal(wrong.json.error, "invalid_client");

        // After a rotation the remembered salt no longer matches: the old secret is refused,
        // the new one issues (and is then one statement again).
        const rotated = await (await svc.api(
          "POST",
          "/api/v1/admin/apps/crm/client-secret",
          adminToken,
        )).json();
        assert.equal((await ask(created.clientSecret)).json.error, "invalid_client");
        assert.equal((await ask(rotated.clientSecret)).res.status, 200);
        assert.equal((await counted(rotated.clientSecret)).statements, 1);

        // A disabled app's client gets no token, even with its salt remembered.
        await svc.api("PATCH", "/api/v1/admin/apps/crm", adminToken, { enabled: false });
        const disabled = await ask(rotated.clientSecret);
        assert.equal(disabled.res.status, 400);
        assert.equal(disabled.json.error, "invalid_client");
      } finally {
        await svc.close();
      }
    },
  });
}
