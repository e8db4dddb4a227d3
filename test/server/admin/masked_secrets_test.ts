/** Secrets are shown once: create and rotate show them in full, every other read masks them. */
import assert from "node:assert/strict";
import { pglite } from "../../helpers/db.ts";
import { startTestService, type TestService } from "../../helpers/service.ts";
import { sharedFixture, uniqueId } from "../../helpers/shared.ts";

const opts = { sanitizeOps: false, sanitizeResources: false };
const service = sharedFixture(() => startTestService(pglite), (svc: TestService) => svc.close());
const MASKED = /^•{8}[A-Za-z0-9]{4}$/;

Deno.test(
  "admin API: the API key and consumer secret are shown once, then masked",
  opts,
  async () => {
    const svc = await service();
    const token = await svc.adminToken();
    const name = uniqueId("mask");
    const created = await (await svc.api("POST", "/api/v1/admin/apps", token, {
      appName: name,
      name: "Mask",
      authType: "oauth2_signed_request",
      consumerKey: "ck",
      consumerSecret: "consumer-secret-0123456789",
    })).json();
    assert.equal(created.consumerSecret, "consumer-secret-0123456789", "create shows it in full");
    assert.match(created.clientSecret, /^[A-Za-z0-9]{40}$/);
    const read = await (await svc.api("GET", `/api/v1/admin/apps/${name}`, token)).json();
    assert.equal(read.consumerSecret, "••••••••6789");
    assert.equal("clientSecret" in read, false);
    const list = await (await svc.api("GET", "/api/v1/admin/apps", token)).json();
    const listed = list.items.find((a: { appName: string }) => a.appName === name);
    assert.match(listed.consumerSecret, MASKED);
    const patched = await (await svc.api("PATCH", `/api/v1/admin/apps/${name}`, token, {
      name: "Masked",
    })).json();
    assert.match(patched.consumerSecret, MASKED);
    const rotated =
      await (await svc.api("POST", `/api/v1/admin/apps/${name}/consumer-secret`, token))
        .json();
    assert.match(rotated.consumerSecret, /^[A-Za-z0-9]{32}$/, "rotate shows the new one in full");
    const template = JSON.stringify(read.template);
    assert.ok(!template.includes("consumer-secret-0123456789"), "no secret in the template");
  },
);
