/**
 * Two origins: PUBLIC_URL for anything sent away, and the request's own origin (a trusted proxy's
 * right-most X-Forwarded-Host, allow-listed by PUBLIC_HOSTS) for same-request checks and redirects.
 */
import assert from "node:assert/strict";
import { Hono } from "hono";
import { ConfigError, loadConfig } from "../../../server/config.ts";
import { publicOrigin, requestOrigin } from "../../../server/http/public_origin.ts";
import { backends } from "../../helpers/db.ts";
import { startTestService, type TestService } from "../../helpers/service.ts";
import { sharedFixture, uniqueId } from "../../helpers/shared.ts";
import { postSignIn } from "../../helpers/sign_in.ts";
import { createTestApp, signLaunch } from "../../helpers/launch.ts";
import { launchPayload } from "../../helpers/payload.ts";
import { hashPassword } from "../../../server/crypto/hashing.ts";

const opts = { sanitizeOps: false, sanitizeResources: false };
const httpsProto = { "X-Forwarded-Proto": "https" };
const BEHIND_PROXY = {
  PUBLIC_URL: "http://portal.test",
  TRUST_PROXY: "true",
  PUBLIC_HOSTS: "alt.portal.test, Other.Portal.Test:8443",
};

/** The request origin of a request with `headers`, under `env`. */
async function originOf(env: Record<string, string>, headers: Record<string, string>) {
  const config = loadConfig(env);
  const app = new Hono();
  app.get("/", (c) => c.text(`${requestOrigin(config, c)} ${publicOrigin(config)}`));
  const [request, sentAway] = (await (await app.request("http://portal.test/", { headers }))
    .text()).split(" ");
  assert.equal(sentAway, "http://portal.test", "anything sent away is PUBLIC_URL");
  return request;
}

Deno.test("origin: without TRUST_PROXY forwarded headers are ignored", async () => {
  const forwarded = { "X-Forwarded-Host": "alt.portal.test", "X-Forwarded-Proto": "https" };
  const env = { ...BEHIND_PROXY, TRUST_PROXY: "false" };
  assert.equal(await originOf(env, forwarded), "http://portal.test");
});

Deno.test("origin: the proxy's allow-listed X-Forwarded-Host and -Proto are used", async () => {
  const forwarded = { "X-Forwarded-Host": "alt.portal.test", "X-Forwarded-Proto": "https" };
  assert.equal(await originOf(BEHIND_PROXY, forwarded), "https://alt.portal.test");
  assert.equal(
    await originOf(BEHIND_PROXY, { "X-Forwarded-Host": "ALT.portal.test:443", ...httpsProto }),
    "https://alt.portal.test",
    "case and the scheme's default port do not matter",
  );
  assert.equal(
    await originOf(BEHIND_PROXY, { "X-Forwarded-Host": "other.portal.test:8443", ...httpsProto }),
    "https://other.portal.test:8443",
  );
  assert.equal(
    await originOf(BEHIND_PROXY, { "X-Forwarded-Host": "alt.portal.test" }),
    "http://alt.portal.test",
    "without X-Forwarded-Proto, PUBLIC_URL's scheme",
  );
});

Deno.test("origin: a host not in PUBLIC_HOSTS falls back to PUBLIC_URL", async () => {
  for (const host of ["evil.test", "alt.portal.test:8080", "other.portal.test", "a/b", "x y"]) {
    assert.equal(
      await originOf(BEHIND_PROXY, { "X-Forwarded-Host": host, ...httpsProto }),
      "http://portal.test",
      host,
    );
  }
  // The default list holds PUBLIC_URL's host only.
  const defaults = { PUBLIC_URL: "http://portal.test", TRUST_PROXY: "true" };
  assert.equal(
    await originOf(defaults, { "X-Forwarded-Host": "alt.portal.test", ...httpsProto }),
    "http://portal.test",
  );
  assert.equal(
    await originOf(defaults, { "X-Forwarded-Host": "portal.test", ...httpsProto }),
    "https://portal.test",
  );
});

Deno.test("origin: forwarded values are read from the right, like X-Forwarded-For", async () => {
  // The client wrote the left entries; the one trusted proxy appended the right-most.
  const poisonedLeft = { "X-Forwarded-Host": "evil.test, alt.portal.test" };
  assert.equal(
    await originOf(BEHIND_PROXY, { ...poisonedLeft, "X-Forwarded-Proto": "http, https" }),
    "https://alt.portal.test",
  );
  const poisonedRight = { "X-Forwarded-Host": "alt.portal.test, evil.test" };
  assert.equal(await originOf(BEHIND_PROXY, poisonedRight), "http://portal.test");
  const twoHops = { ...BEHIND_PROXY, TRUSTED_PROXY_HOPS: "2" };
  assert.equal(
    await originOf(twoHops, { "X-Forwarded-Host": "evil.test, alt.portal.test, inner.lan" }),
    "http://alt.portal.test",
    "the outermost of two proxies wrote the second entry from the right",
  );
});

Deno.test("config: PUBLIC_HOSTS is a list of host[:port]; PUBLIC_URL's host is always in it", () => {
  assert.deepEqual(loadConfig({ PUBLIC_URL: "https://p.example:8443" }).publicHosts, [
    "p.example:8443",
  ]);
  assert.deepEqual(
    loadConfig({ PUBLIC_URL: "https://p.example", PUBLIC_HOSTS: " A.example ,b.example:81," })
      .publicHosts,
    ["p.example", "a.example", "b.example:81"],
  );
  for (const bad of ["https://a.example", "a.example/path", "a b", "a.example:port"]) {
    assert.throws(
      () => loadConfig({ PUBLIC_HOSTS: bad }),
      (err: unknown) => err instanceof ConfigError && /^PUBLIC_HOSTS: /.test(err.problems[0]),
      bad,
    );
  }
});

for (const backend of backends) {
  const ADMIN = { email: "root@example.com", password: "root-password-0123456789" };
  const service = sharedFixture(
    () =>
      startTestService(backend, {
        ...BEHIND_PROXY,
        ADMIN_EMAIL: ADMIN.email,
        ADMIN_PASSWORD: ADMIN.password,
      }),
    (svc: TestService) => svc.close(),
  );

  const agentWithPassword = async (svc: TestService, password: string) => {
    const email = `${uniqueId("po")}@example.com`;
    await svc.db.sql`insert into users (role, email, first_name, last_name, password_hash)
      values ('agent', ${email}, 'P', 'O', ${await hashPassword(password)})`;
    return email;
  };

  /** Headers of a browser's same-origin form post made through the proxy to `host`. */
  const throughProxy = (host: string) => ({
    "X-Forwarded-Host": host,
    "X-Forwarded-Proto": "https",
    Origin: `https://${host}`,
  });

  Deno.test(
    `origin: sign-in through an allow-listed host passes the same-origin check [${backend.name}]`,
    opts,
    async () => {
      const svc = await service();
      const email = await agentWithPassword(svc, "right-password-01");
      for (
        const [path, fields] of [
          ["/portal/login", { email, password: "right-password-01" }],
          ["/admin/login", ADMIN],
        ] as const
      ) {
        const res = await postSignIn(svc, path, fields, throughProxy("alt.portal.test"));
        await res.body?.cancel();
        assert.equal(res.status, 303, `${path}: signed in`);
      }
    },
  );

  Deno.test(
    `origin: a forwarded host not allow-listed cannot vouch for its own Origin [${backend.name}]`,
    opts,
    async () => {
      const svc = await service();
      const email = await agentWithPassword(svc, "right-password-01");
      for (
        const [path, fields] of [
          ["/portal/login", { email, password: "right-password-01" }],
          ["/admin/login", ADMIN],
        ] as const
      ) {
        const res = await postSignIn(svc, path, fields, throughProxy("evil.test"));
        await res.body?.cancel();
        assert.equal(res.status, 403, `${path}: refused as another site's form`);
        assert.doesNotMatch(res.headers.get("Set-Cookie") ?? "", /(portal|admin)_login=/);
      }
    },
  );

  Deno.test(
    `origin: a launch redirects to its own allow-listed host, never to another [${backend.name}]`,
    opts,
    async () => {
      const svc = await service();
      const app = await createTestApp(svc, await svc.adminToken(), uniqueId("origin"));
      const launch = async (host: string) => {
        const res = await svc.request(`/portal/api/auth/app/${app.appName}`, {
          method: "POST",
          headers: { Accept: "text/html", "X-Forwarded-Host": host, ...httpsProto },
          body: new URLSearchParams({
            signed_request: await signLaunch(launchPayload(), app.apiKey),
          }),
        });
        await res.body?.cancel();
        assert.equal(res.status, 303);
        return res.headers.get("Location")!;
      };
      assert.match(
        await launch("alt.portal.test"),
        /^https:\/\/alt\.portal\.test\/portal\/sessions\//,
      );
      assert.match(await launch("evil.test"), /^http:\/\/portal\.test\/portal\/sessions\//);
      assert.match(
        await launch("alt.portal.test, evil.test"),
        /^http:\/\/portal\.test\/portal\/sessions\//,
      );
    },
  );

  Deno.test(
    `origin: an app's launch URLs are PUBLIC_URL's whatever host asks [${backend.name}]`,
    opts,
    async () => {
      const svc = await service();
      const token = await svc.adminToken();
      const app = await createTestApp(svc, token, uniqueId("urls"));
      for (const host of ["alt.portal.test", "evil.test"]) {
        const res = await svc.request(`/api/v1/admin/apps/${app.appName}`, {
          headers: { Authorization: `Bearer ${token}`, "X-Forwarded-Host": host, ...httpsProto },
        });
        assert.equal(res.status, 200);
        const text = await res.text();
        assert.ok(text.includes(`"http://portal.test/portal/api/auth/app/${app.appName}"`), text);
        assert.ok(!text.includes(host), `${host} appears nowhere`);
      }
      const signedIn = await postSignIn(svc, "/admin/login", ADMIN);
      await signedIn.body?.cancel();
      const cookie = signedIn.headers.get("Set-Cookie")!.split(";")[0];
      const page = await svc.request(`/admin/apps/${app.appName}`, {
        headers: { Cookie: cookie, "X-Forwarded-Host": "alt.portal.test", ...httpsProto },
      });
      assert.equal(page.status, 200);
      assert.match(
        await page.text(),
        new RegExp(`data-testid="launch-url">http://portal\\.test/portal/api/auth/app/`),
        "the admin screen shows the URL to copy under PUBLIC_URL",
      );
    },
  );
}
