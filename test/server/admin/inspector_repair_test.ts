/** The inspector explains the launch's transport repairs the way the launch applies them. */
import assert from "node:assert/strict";
import { pglite } from "../../helpers/db.ts";
import { startTestService, type TestService } from "../../helpers/service.ts";
import { sharedFixture } from "../../helpers/shared.ts";
import { createTestApp, signLaunch } from "../../helpers/launch.ts";
import { launchPayload } from "../../helpers/payload.ts";
import { inspectSignedRequest } from "../../../server/admin/inspector.ts";

const opts = { sanitizeOps: false, sanitizeResources: false };
const service = sharedFixture(() => startTestService(pglite), (svc: TestService) => svc.close());

Deno.test(
  "admin inspector: '+' as spaces and wrapped Base64 are repaired and explained",
  opts,
  async () => {
    const svc = await service();
    const app = await createTestApp(svc, await svc.adminToken(), "inspect-repair");
    let signed = "";
    for (let i = 0; !signed.includes("+"); i++) {
      signed = await signLaunch(launchPayload({ referenceId: `R${i}` }), app.apiKey);
    }
    const spaced = await inspectSignedRequest(svc.deps, app.appName, signed.replaceAll("+", " "));
    assert.equal(spaced.signature, "valid", "verified after the repair, as the launch does");
    assert.match(spaced.causes[0], /arrived as spaces.*signed_request_repaired/);
    const wrapped = await inspectSignedRequest(
      svc.deps,
      app.appName,
      signed.replace(/(.{76})/g, "$1\r\n"),
    );
    assert.equal(wrapped.signature, "valid");
    assert.match(wrapped.causes[0], /wrapped in lines/);
    const clean = await inspectSignedRequest(svc.deps, app.appName, signed);
    assert.deepEqual(clean.causes, []);
  },
);
