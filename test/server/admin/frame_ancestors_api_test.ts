/** The admin API refuses frame ancestors that would let any site frame the portal. */
import assert from "node:assert/strict";
import { pglite } from "../../helpers/db.ts";
import { startTestService, type TestService } from "../../helpers/service.ts";
import { sharedFixture, uniqueId } from "../../helpers/shared.ts";

const opts = { sanitizeOps: false, sanitizeResources: false };
const service = sharedFixture(() => startTestService(pglite), (svc: TestService) => svc.close());

Deno.test(
  "admin API: frame ancestors must be https (loopback http) and no public-suffix wildcard",
  opts,
  async () => {
    const svc = await service();
    const token = await svc.adminToken();
    const create = (frameAncestors: string[]) =>
      svc.api("POST", "/api/v1/admin/apps", token, {
        appName: uniqueId("fa"),
        name: "FA",
        authType: "signed_request",
        frameAncestors,
      });
    for (const bad of ["http://crm.example.com", "https://*.com", "https://*.co.uk"]) {
      const res = await create([bad]);
      assert.equal(res.status, 400, bad);
      const body = await res.json();
      assert.equal(body.errors[0].path, "frameAncestors.0", bad);
    }
    const ok = await create(["https://*.example.com", "http://localhost:8001"]);
    assert.equal(ok.status, 201);
    await ok.body?.cancel();
  },
);
