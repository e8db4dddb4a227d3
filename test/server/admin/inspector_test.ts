import assert from "node:assert/strict";
import { inspectSignedRequest } from "../../../server/admin/inspector.ts";
import { maskSecrets } from "../../../server/admin/launch_log.ts";
import { encodeBase64 } from "../../../server/crypto/base64.ts";
import { hmacBase64, signPayload } from "../../../server/launch/signed_request.ts";
import { pglite } from "../../helpers/db.ts";
import { createTestApp } from "../../helpers/launch.ts";
import { launchPayload } from "../../helpers/payload.ts";
import { startTestService } from "../../helpers/service.ts";

Deno.test({
  name: "inspector: diagnoses each common signing mistake and writes nothing",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn(t) {
    const svc = await startTestService(pglite);
    try {
      const admin = await svc.adminToken();
      const app = await createTestApp(svc, admin, "crm");
      const other = await createTestApp(svc, admin, "helpdesk");
      const deps = { ...svc.deps };
      const json = JSON.stringify(launchPayload());
      const good = await signPayload(json, app.apiKey);
      const [sig, encoded] = good.split(".");
      const inspect = (raw: string) => inspectSignedRequest(deps, "crm", raw);

      await t.step("a good request: valid, parsed, planned", async () => {
        const r = await inspect(good);
        assert.equal(r.signature, "valid");
        assert.deepEqual(r.causes, []);
        assert.equal(r.validation?.message, "Valid launch payload");
        assert.deepEqual(r.plan, {
          agent: "create",
          customer: "create",
          session: "create",
          assign: true,
        });
      });

      await t.step("URL-safe re-encoding of the payload", async () => {
        // Find a payload whose Base64 holds '+' or '/', so the URL-safe form differs.
        let p = json;
        for (let i = 0; !/[+/]/.test(encodeBase64(p)); i++) {
          p = JSON.stringify(launchPayload({ referenceId: `R~?>${i}` }));
        }
        const s = await signPayload(p, app.apiKey);
        const [sg, enc] = s.split(".");
        const urlSafe = enc.replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
        const r = await inspect(`${sg}.${urlSafe}`);
        assert.equal(r.signature, "invalid");
        assert.match(r.causes[0], /URL-safe Base64 after signing/);
        assert.ok(r.payload, "the payload still decodes");
      });

      await t.step("the JSON re-serialized after signing", async () => {
        const pretty = encodeBase64(JSON.stringify(JSON.parse(json), null, 2));
        const signedPretty = `${await hmacBase64(pretty, app.apiKey)}.${pretty}`;
        const compact = encodeBase64(json);
        const r = await inspect(`${signedPretty.split(".")[0]}.${compact}`);
        assert.match(r.causes[0], /re-encoded after signing/);
      });

      await t.step("HMAC over the JSON instead of the Base64", async () => {
        const r = await inspect(`${await hmacBase64(json, app.apiKey)}.${encoded}`);
        assert.match(r.causes[0], /over the JSON text instead of its Base64/);
      });

      await t.step("another app's key, and an unknown key", async () => {
        const r = await inspect(await signPayload(json, other.apiKey));
        assert.match(r.causes[0], /another app, helpdesk/);
        const unknown = await inspect(await signPayload(json, "unknown-key-0123456789"));
        assert.match(unknown.causes.at(-1)!, /Wrong key/);
      });

      await t.step("malformed values and unknown apps", async () => {
        const r = await inspect("no-dot-here");
        assert.equal(r.signature, "malformed");
        const notJson = await inspect(`${sig}.${encodeBase64("not json")}`);
        assert.equal(notJson.decodeError, "The payload is not JSON");
        await assert.rejects(inspectSignedRequest(deps, "nope", good), /Unknown application/);
        const [{ count }] = await svc.db.sql`select count(*) from launches`;
        assert.equal(count, 0, "nothing written");
      });
    } finally {
      await svc.close();
    }
  },
});

Deno.test("launch log: secret-looking keys are masked at any depth", () => {
  assert.deepEqual(
    maskSecrets({ a: 1, api_key: "k", nested: [{ Password: "p", name: "x" }], token: null }),
    { a: 1, api_key: "••••••", nested: [{ Password: "••••••", name: "x" }], token: "••••••" },
  );
});
