/**
 * RFC 8414 metadata: clients configure themselves from it and caches may keep it, so it names the
 * endpoints under PUBLIC_URL whatever forwarded host the request carried, and says how to cache it.
 */
import assert from "node:assert/strict";
import { backends } from "../../helpers/db.ts";
import { startTestService, type TestService } from "../../helpers/service.ts";
import { sharedFixture } from "../../helpers/shared.ts";

const opts = { sanitizeOps: false, sanitizeResources: false };

for (const backend of backends) {
  const service = sharedFixture(
    () => startTestService(backend, { TRUST_PROXY: "true", PUBLIC_HOSTS: "alt.portal.test" }),
    (svc: TestService) => svc.close(),
  );

  Deno.test(
    `oauth metadata: endpoints under PUBLIC_URL whatever X-Forwarded-Host says [${backend.name}]`,
    opts,
    async () => {
      const svc = await service();
      const plain = await (await svc.request("/.well-known/oauth-authorization-server")).json();
      for (
        const host of [
          "evil.test",
          "evil.test, portal.test",
          "portal.test, evil.test",
          "alt.portal.test",
        ]
      ) {
        const res = await svc.request("/.well-known/oauth-authorization-server", {
          headers: { "X-Forwarded-Host": host, "X-Forwarded-Proto": "https" },
        });
        assert.equal(res.status, 200);
        const meta = await res.json();
        assert.equal(meta.issuer, "http://portal.test", host);
        assert.equal(meta.token_endpoint, "http://portal.test/api/v1/oauth2/token", host);
        assert.equal(meta.revocation_endpoint, "http://portal.test/api/v1/oauth2/revoke", host);
        assert.equal(
          meta.introspection_endpoint,
          "http://portal.test/api/v1/oauth2/introspect",
          host,
        );
        assert.deepEqual(meta, plain, `${host}: the same document`);
      }
    },
  );

  Deno.test(
    `oauth metadata: cacheable for five minutes, varying only with the encoding [${backend.name}]`,
    opts,
    async () => {
      const svc = await service();
      const res = await svc.request("/.well-known/oauth-authorization-server");
      await res.body?.cancel();
      assert.equal(res.headers.get("Cache-Control"), "public, max-age=300");
      assert.equal(res.headers.get("Vary"), "Accept-Encoding");
    },
  );
}
