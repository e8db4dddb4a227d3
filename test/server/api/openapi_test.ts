import assert from "node:assert/strict";
import { Validator } from "@seriousme/openapi-schema-validator";
import { exampleOf } from "../../../server/api/docs_page.tsx";
import { pglite } from "../../helpers/db.ts";
import { startTestService } from "../../helpers/service.ts";

Deno.test({
  name: "OpenAPI document: valid 3.1, exactly the served routes, and a working reference page",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn(t) {
    const svc = await startTestService(pglite);
    try {
      const res = await svc.request("/api/v1/openapi.json");
      assert.equal(res.status, 200);
      const doc = await res.json();

      await t.step("passes an OpenAPI 3.1 schema validator", async () => {
        const validator = new Validator();
        const result = await validator.validate(doc);
        assert.equal(validator.version, "3.1");
        assert.deepEqual(result.errors ?? [], []);
        assert.equal(result.valid, true);
        assert.equal(doc.servers[0].url, "http://portal.test/api/v1");
      });

      await t.step("lists exactly the routes the app serves under /api/v1", () => {
        const served = new Set(
          svc.app.routes
            .filter((r) => r.path.startsWith("/api/v1/") && r.method !== "ALL")
            .map((r) =>
              `${r.method} ${
                r.path.slice("/api/v1".length).replace(/:([A-Za-z]+)(\{[^}]*\})?/g, "{$1}")
              }`
            ),
        );
        const documented = new Set<string>();
        for (const [path, item] of Object.entries(doc.paths)) {
          for (const method of Object.keys(item as object)) {
            documented.add(`${method.toUpperCase()} ${path}`);
          }
        }
        assert.deepEqual([...documented].sort(), [...served].sort());
        for (
          const op of [
            "GET /sessions/{id}",
            "GET /sessions",
            "PATCH /sessions/{id}",
            "GET /customers",
            "GET /agents/{id}",
            "GET /launches",
            "POST /oauth2/token",
            "POST /oauth2/revoke",
            "POST /oauth2/introspect",
            "POST /admin/apps",
          ]
        ) assert.ok(documented.has(op), op);
      });

      await t.step("security schemes, scopes and examples", () => {
        const schemes = doc.components.securitySchemes;
        assert.equal(schemes.oauth2.type, "oauth2");
        assert.deepEqual(Object.keys(schemes.oauth2.flows.clientCredentials.scopes).sort(), [
          "admin",
          "sessions:read",
          "sessions:write",
        ]);
        assert.equal(schemes.clientBasic.scheme, "basic");
        assert.deepEqual(doc.paths["/sessions/{id}"].get.security, [{
          oauth2: ["sessions:read"],
        }]);
        assert.deepEqual(doc.paths["/sessions/{id}"].patch.security, [{
          oauth2: ["sessions:write"],
        }]);
        assert.deepEqual(doc.paths["/admin/apps"].get.security, [{ oauth2: ["admin"] }]);
        const session = exampleOf(doc, { $ref: "#/components/schemas/Session" }) as Record<
          string,
          unknown
        >;
        assert.equal(session.id, 42);
        assert.equal(session.externalReference, "CASE00017");
      });

      await t.step("the reference page is served with its own script, offline", async () => {
        const page = await svc.request("/api/v1/docs");
        assert.equal(page.status, 200);
        const csp = page.headers.get("Content-Security-Policy")!;
        assert.match(csp, /default-src 'none'/);
        assert.match(csp, /script-src 'self'/, "the page's own script");
        assert.doesNotMatch(csp, /unsafe-inline/);
        const html = await page.text();
        assert.match(html, /<script src="\/assets\/api-docs\.js\?v=[0-9a-z]+" defer><\/script>/);
        assert.match(
          html,
          /<link rel="stylesheet" href="\/assets\/api-docs\.css\?v=[0-9a-z]+"\/?>/,
        );
        assert.doesNotMatch(html, /https?:\/\/(?!portal\.test)[a-z]/, "no outside assets");
        for (const path of ["/sessions/{id}", "/oauth2/introspect", "/admin/apps"]) {
          assert.ok(html.includes(`data-path="${path}"`), path);
        }
        const script = await svc.request("/assets/api-docs.js");
        assert.equal(script.status, 200);
        assert.match(script.headers.get("Content-Type")!, /javascript/);
        assert.match(await script.text(), /Authorization = "Bearer "/);
      });

      await t.step("both are answered as built once, with an ETag to revalidate", async () => {
        const tags = new Set<string>();
        for (const path of ["/api/v1/openapi.json", "/api/v1/docs"]) {
          const first = await svc.request(path);
          const tag = first.headers.get("ETag")!;
          assert.match(tag, /^"[0-9a-f]{16}"$/, path);
          assert.equal(
            first.headers.get("Cache-Control"),
            path.endsWith(".json") ? "no-cache" : "no-store",
          );
          const body = await first.text();
          const again = await svc.request(path);
          assert.equal(again.headers.get("ETag"), tag);
          assert.equal(await again.text(), body, "the same bytes each time");
          const unchanged = await svc.request(path, { headers: { "If-None-Match": tag } });
          assert.equal(unchanged.status, 304, path);
          assert.equal(await unchanged.text(), "");
          const stale = await svc.request(path, { headers: { "If-None-Match": '"0"' } });
          assert.equal(stale.status, 200);
          await stale.body?.cancel();
          tags.add(tag);
        }
        assert.equal(tags.size, 2, "the document and the page have tags of their own");
        assert.equal(
          (await svc.request("/api/v1/openapi.json")).headers.get("Content-Type"),
          "application/json",
        );
      });
    } finally {
      await svc.close();
    }
  },
});
