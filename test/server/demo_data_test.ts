/**
 * The first start's demo data follows DEMO_PORT (the mock CRM's port): the demo app's allowed
 * frame ancestors and callback URL; the banner names the mock CRM's page and the Try launch page.
 */
import assert from "node:assert/strict";
import { loadConfig } from "../../server/config.ts";
import { startBanner, startRecord } from "../../server/observability/start_record.ts";
import { createDemoData, demoOrigins } from "../../server/startup_data.ts";
import { pglite } from "../helpers/db.ts";
import { startTestService } from "../helpers/service.ts";

const opts = { sanitizeOps: false, sanitizeResources: false };

Deno.test("demo data: DEMO_PORT defaults to 8001, the mock CRM's origins on it", () => {
  assert.equal(loadConfig({}).demoPort, 8001);
  assert.deepEqual(demoOrigins(8001), ["http://localhost:8001", "http://127.0.0.1:8001"]);
  assert.throws(() => loadConfig({ DEMO_PORT: "none" }), /DEMO_PORT: expected a whole number/);
});

Deno.test(
  "demo data: the demo app's allowed origins and callbacks follow DEMO_PORT",
  opts,
  async () => {
    const svc = await startTestService(pglite, {
      DEMO_PORT: "9123",
      CALLBACK_ALLOW_PRIVATE_NETWORKS: "true",
    });
    try {
      const demo = await createDemoData(svc.deps);
      assert.ok(demo, "a first start");
      const res = await svc.api("GET", "/api/v1/admin/apps/demo", await svc.adminToken());
      const app = await res.json();
      assert.deepEqual(app.frameAncestors, ["http://localhost:9123", "http://127.0.0.1:9123"]);
      assert.equal(app.callbackUrl, "http://localhost:9123/callbacks");
      assert.equal(demo.demoUrl, "http://localhost:9123/");
      assert.equal(demo.tryLaunchUrl, "http://portal.test/admin/apps/demo/try-launch");

      const facts = {
        url: "http://127.0.0.1:8000",
        publicUrl: "http://portal.test",
        portalPrefix: "/portal",
        database: "embedded",
        metricsUrl: null,
        migrated: { migrations: [], functions: [] },
        demo,
      };
      const banner = startBanner(facts);
      assert.match(banner, /try a launch: +http:\/\/portal\.test\/admin\/apps\/demo\/try-launch/);
      assert.match(banner, /then open http:\/\/localhost:9123\/:/);
      assert.match(banner, /DEMO_PORT=9123 deno task demo/);
      assert.match(banner, /calls the mock CRM back at http:\/\/localhost:9123\/callbacks/);
      const record = startRecord(facts) as { demo: { tryLaunchUrl: string } };
      assert.equal(record.demo.tryLaunchUrl, demo.tryLaunchUrl);
    } finally {
      await svc.close();
    }
  },
);
