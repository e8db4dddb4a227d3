/**
 * A refused launch keeps why: its field errors and the Inspector's diagnosis of its signed_request,
 * in the admin launch log and in GET /api/v1/launches/{id}.
 */
import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import { encodeBase64 } from "../../../server/crypto/base64.ts";
import { inspectSignedRequest } from "../../../server/admin/inspector.ts";
import { pglite } from "../../helpers/db.ts";
import { createTestApp, signLaunch } from "../../helpers/launch.ts";
import { launchPayload } from "../../helpers/payload.ts";
import { startTestService } from "../../helpers/service.ts";
import { postSignIn } from "../../helpers/sign_in.ts";

Deno.test({
  name: "launch log: a refused launch keeps its field errors and its diagnosis",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const svc = await startTestService(pglite, {
      ADMIN_EMAIL: "root@example.com",
      ADMIN_PASSWORD: "root-password-0123456789",
    });
    try {
      const admin = await svc.adminToken();
      const app = await createTestApp(svc, admin, "crm");
      const post = async (signed: string) => {
        const res = await svc.request("/portal/api/auth/app/crm", {
          method: "POST",
          headers: { Accept: "application/json" },
          body: new URLSearchParams({ signed_request: signed }),
        });
        await res.body?.cancel();
        const list = await (await svc.api("GET", "/api/v1/launches?limit=1", admin)).json();
        const id = list.items[0].id;
        return await (await svc.api("GET", `/api/v1/launches/${id}`, admin)).json();
      };
      // A hex signature: refused before the payload is read; the diagnosis says why.
      const text = JSON.stringify(launchPayload());
      const encoded = encodeBase64(text);
      const hex = createHmac("sha256", app.apiKey).update(encoded).digest("hex");
      const bad = await post(`${hex}.${encoded}`);
      assert.equal(bad.outcome, "invalid_signature");
      assert.deepEqual(bad.errors, []);
      assert.equal(bad.diagnosis.signature, "invalid");
      assert.match(bad.diagnosis.causes[0], /hex-encoded/);
      // A verified request with an invalid payload: its field errors, and a valid signature.
      const invalid = await post(
        await signLaunch(launchPayload({ contactEmail: "nope" }), app.apiKey),
      );
      assert.equal(invalid.outcome, "invalid_payload");
      assert.deepEqual(invalid.diagnosis, { signature: "valid", causes: [] });
      assert.ok(invalid.errors.length > 0);
      for (const e of invalid.errors) {
        assert.deepEqual(Object.keys(e).sort(), ["code", "message", "path"]);
      }
      assert.ok(invalid.errors.some((e: { path: string }) => /contactEmail/.test(e.path)));
      // Signed with another app's key: named when that app is of the same organization (up to
      // LAUNCH_DIAGNOSIS_APPS of them), never one of another organization; the Inspector, which
      // an administrator asks, names any app.
      const sibling = await createTestApp(svc, admin, "sibling");
      const made = await svc.api("POST", "/api/v1/admin/organizations", admin, {
        slug: "elsewhere",
        name: "Elsewhere",
      });
      assert.equal(made.status, 201);
      const stranger = await createTestApp(svc, admin, "stranger", { organization: "elsewhere" });
      const bySibling = await post(await signLaunch(launchPayload(), sibling.apiKey));
      assert.equal(bySibling.outcome, "invalid_signature");
      assert.deepEqual(bySibling.diagnosis.causes, [
        "It was signed with the key of another app, sibling.",
      ]);
      const strangerSigned = await signLaunch(launchPayload(), stranger.apiKey);
      const byStranger = await post(strangerSigned);
      assert.equal(byStranger.outcome, "invalid_signature");
      assert.ok(
        !byStranger.diagnosis.causes.some((c: string) => c.includes("stranger")),
        JSON.stringify(byStranger.diagnosis),
      );
      const inspected = await inspectSignedRequest({ ...svc.deps }, "crm", strangerSigned);
      assert.match(inspected.causes[0], /another app, stranger/);
      // The admin screen shows both.
      const signIn = await postSignIn(svc, "/admin/login", {
        email: "root@example.com",
        password: "root-password-0123456789",
      });
      const cookie = signIn.headers.get("Set-Cookie")!.split(";")[0];
      const page = async (id: number) =>
        await (await svc.request(`/admin/launches/${id}`, { headers: { Cookie: cookie } })).text();
      const badPage = await page(bad.id);
      assert.match(badPage, /data-testid="diagnosis-signature">invalid/);
      assert.match(badPage, /hex-encoded/);
      const invalidPage = await page(invalid.id);
      assert.match(invalidPage, /data-testid="field-errors"/);
      assert.match(invalidPage, /contactEmail/);
    } finally {
      await svc.close();
    }
  },
});
