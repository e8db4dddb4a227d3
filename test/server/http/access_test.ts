/** The access helpers on their own: safe `next`, page or JSON, and the public-route matcher. */
import assert from "node:assert/strict";
import { Hono } from "hono";
import { safeNext, wantsJson } from "../../../server/http/access.ts";
import { publicMatcher, publicRoutes } from "../../../server/http/public_routes.ts";

Deno.test("safeNext keeps a path under the prefix", () => {
  for (const next of ["/portal/sessions/7", "/portal/sessions?q=a%20b", "/portal"]) {
    assert.equal(safeNext("/portal", next, "/portal/sessions"), next);
  }
  assert.equal(safeNext("/admin", "/admin/apps/x/../y", "/admin/apps"), "/admin/apps/y");
});

Deno.test("safeNext refuses anything that could leave the site or the prefix", () => {
  const refused = [
    undefined,
    42,
    "",
    "portal/sessions",
    "//evil.example/portal/x",
    "https://evil.example/portal/x",
    "javascript:alert(1)",
    "/\\evil.example",
    "/portal\\..\\admin",
    "/portal/../admin/apps",
    "/portal/%0d%0aSet-Cookie:x".replace("%0d%0a", "\r\n"),
    "/portal//evil.example",
    "/portalx/sessions",
    "/admin/apps",
  ];
  for (const next of refused) {
    assert.equal(safeNext("/portal", next, "/portal/sessions"), "/portal/sessions", String(next));
  }
});

Deno.test("safeNext percent-encodes what a Location header cannot carry", () => {
  assert.equal(safeNext("/portal", "/portal/sessions?q=€", "/x"), "/portal/sessions?q=%E2%82%AC");
});

Deno.test("wantsJson tells a page request from a JSON client", async () => {
  const app = new Hono();
  app.get("/", (c) => c.text(String(wantsJson(c))));
  const ask = async (headers: Record<string, string>) =>
    await (await app.request("/", { headers })).text();
  assert.equal(await ask({}), "false", "no Accept: a page");
  assert.equal(await ask({ Accept: "*/*" }), "false");
  assert.equal(await ask({ Accept: "text/html,application/xhtml+xml,*/*;q=0.8" }), "false");
  assert.equal(await ask({ Accept: "application/json" }), "true");
  assert.equal(await ask({ Accept: "*/*", "Sec-Fetch-Dest": "empty" }), "true", "fetch()");
  assert.equal(await ask({ Accept: "text/html", "Sec-Fetch-Dest": "empty" }), "false");
  assert.equal(await ask({ "Sec-Fetch-Dest": "document" }), "false", "navigation");
});

Deno.test("publicMatcher matches listed methods and paths only", () => {
  const isPublic = publicMatcher(publicRoutes("/desk"));
  assert.equal(isPublic("GET", "/desk/login")?.path, "/desk/login");
  assert.equal(isPublic("HEAD", "/desk/login")?.path, "/desk/login", "HEAD as GET");
  assert.equal(isPublic("POST", "/desk/api/auth/app/crm")?.method, "ALL");
  assert.equal(isPublic("OPTIONS", "/desk/api/auth/app/crm/validate")?.method, "ALL");
  assert.equal(isPublic("GET", "/desk/sessions"), null);
  assert.equal(isPublic("GET", "/portal/login"), null, "the configured prefix only");
  assert.equal(isPublic("POST", "/desk/logout"), null);
  assert.equal(isPublic("DELETE", "/desk/login"), null);
  assert.equal(isPublic("GET", "/desk/password-reset/short"), null, "a token has 43 characters");
  assert.ok(isPublic("GET", `/desk/password-reset/${"a".repeat(43)}`));
  assert.equal(isPublic("GET", "/admin/apps"), null);
  assert.equal(isPublic("GET", "/api/v1/sessions"), null);
});
