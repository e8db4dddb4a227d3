import assert from "node:assert/strict";
import { pglite } from "../../helpers/db.ts";
import { startTestService, type TestService } from "../../helpers/service.ts";
import { sharedFixture } from "../../helpers/shared.ts";
import { createTestApp } from "../../helpers/launch.ts";
import { forwardedEntry } from "../../../server/http/client_address.ts";

const service = sharedFixture(
  () => startTestService(pglite, { PUBLIC_URL: "https://portal.test" }),
  (svc: TestService) => svc.close(),
);

const opts = { sanitizeOps: false, sanitizeResources: false };

Deno.test(
  "http: every response carries the security headers (hono/secure-headers)",
  opts,
  async () => {
    const svc = await service();
    for (const path of ["/healthz", "/api/v1/sessions", "/no-such-route", "/admin/login"]) {
      const res = await svc.request(path);
      await res.body?.cancel();
      assert.equal(res.headers.get("X-Content-Type-Options"), "nosniff", path);
      assert.equal(res.headers.get("Referrer-Policy"), "same-origin", path);
      assert.equal(
        res.headers.get("Strict-Transport-Security"),
        "max-age=31536000; includeSubDomains",
        `${path}: PUBLIC_URL is https`,
      );
      assert.equal(res.headers.get("X-Frame-Options"), null, `${path}: framing is the CSP's call`);
      assert.equal(res.headers.get("Cross-Origin-Opener-Policy"), null, `${path}: opener kept`);
    }
  },
);

Deno.test("http: no Strict-Transport-Security on a plain-http PUBLIC_URL", opts, async () => {
  const svc = await startTestService(pglite, { PUBLIC_URL: "http://portal.test" });
  try {
    const res = await svc.request("/healthz");
    await res.body?.cancel();
    assert.equal(res.headers.get("Strict-Transport-Security"), null);
  } finally {
    await svc.close();
  }
});

Deno.test("http: X-Request-Id is echoed when valid and replaced otherwise", opts, async () => {
  const svc = await service();
  const given = await svc.request("/healthz", { headers: { "X-Request-Id": "trace-42_a=" } });
  await given.body?.cancel();
  assert.equal(given.headers.get("X-Request-Id"), "trace-42_a=");
  for (const bad of ["has space", "x".repeat(129), "semi;colon"]) {
    const res = await svc.request("/healthz", { headers: { "X-Request-Id": bad } });
    await res.body?.cancel();
    assert.match(res.headers.get("X-Request-Id")!, /^[0-9a-f-]{36}$/, bad);
  }
});

Deno.test("http: the dry run's CORS preflight admits only the app's origins", opts, async () => {
  const svc = await service();
  await createTestApp(svc, await svc.adminToken(), "corsapp", {
    frameAncestors: ["https://crm.example.com"],
  });
  const preflight = (origin: string) =>
    svc.request("/portal/api/auth/app/corsapp/validate", {
      method: "OPTIONS",
      headers: { Origin: origin, "Access-Control-Request-Method": "POST" },
    });
  const ok = await preflight("https://crm.example.com");
  assert.equal(ok.status, 204);
  assert.equal(ok.headers.get("Access-Control-Allow-Origin"), "https://crm.example.com");
  assert.equal(ok.headers.get("Access-Control-Allow-Methods"), "POST");
  assert.equal(ok.headers.get("Access-Control-Max-Age"), "600");
  const evil = await preflight("https://evil.example.com");
  assert.equal(evil.headers.get("Access-Control-Allow-Origin"), null);
});

Deno.test("http: the OpenAPI document may be read from any origin", opts, async () => {
  const svc = await service();
  const res = await svc.request("/api/v1/openapi.json", { headers: { Origin: "https://x.test" } });
  await res.body?.cancel();
  assert.equal(res.headers.get("Access-Control-Allow-Origin"), "*");
});

Deno.test("http: every 413 has the same body", opts, async () => {
  const svc = await service();
  const token = await svc.adminToken();
  const big = "x".repeat(300 * 1024);
  const answers = [
    await svc.request("/api/v1/oauth2/token", {
      method: "POST",
      body: new URLSearchParams({ a: big }),
    }),
    await svc.api("POST", "/api/v1/admin/apps", token, { name: big }),
    await svc.request("/portal/api/auth/app/x", {
      method: "POST",
      body: new URLSearchParams({ signed_request: big }),
      headers: { Accept: "application/json" },
    }),
  ];
  for (const res of answers) {
    assert.equal(res.status, 413);
    const body = await res.json();
    assert.equal(body.code, "body_too_large");
    assert.match(body.message, /^Request body too large \(limit \d+ KiB\)$/);
  }
});

Deno.test("http: the client address is the right-most entry the trusted proxies wrote", () => {
  // A client forges "1.1.1.1"; the one proxy in front appends the real peer, 203.0.113.9.
  assert.equal(forwardedEntry("1.1.1.1, 203.0.113.9", 1), "203.0.113.9");
  // Two proxies: the outer one appended the client, the inner one the outer proxy.
  assert.equal(forwardedEntry("1.1.1.1, 203.0.113.9, 10.0.0.2", 2), "203.0.113.9");
  assert.equal(forwardedEntry("203.0.113.9", 3), "203.0.113.9", "fewer entries than hops");
  assert.equal(forwardedEntry(" , ", 1), null);
});
