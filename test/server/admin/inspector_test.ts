/**
 * The signed-request inspector and the launch log's masking. The inspector tests share one
 * service (apps crm and helpdesk); each inspects its own request, so any one runs alone.
 */
import assert from "node:assert/strict";
import { inspectSignedRequest } from "../../../server/admin/inspector.ts";
import { maskLaunchPayload } from "../../../server/launch/payload_mask.ts";
import { encodeBase64 } from "../../../server/crypto/base64.ts";
import { hmacBase64, signPayload } from "../../../server/launch/signed_request.ts";
import { pglite } from "../../helpers/db.ts";
import { createTestApp, type TestApp } from "../../helpers/launch.ts";
import { launchPayload } from "../../helpers/payload.ts";
import { startTestService, type TestService } from "../../helpers/service.ts";
import { sharedFixture } from "../../helpers/shared.ts";

/** The service, two apps, and a good signed request of `crm`. */
interface InspectorFixture {
  svc: TestService;
  app: TestApp;
  other: TestApp;
  json: string;
  good: string;
  inspect(raw: string): ReturnType<typeof inspectSignedRequest>;
}

const fixture = sharedFixture(async (): Promise<InspectorFixture> => {
  const svc = await startTestService(pglite);
  const admin = await svc.adminToken();
  const app = await createTestApp(svc, admin, "crm");
  const other = await createTestApp(svc, admin, "helpdesk");
  const json = JSON.stringify(launchPayload());
  return {
    svc,
    app,
    other,
    json,
    good: await signPayload(json, app.apiKey),
    inspect: (raw) => inspectSignedRequest({ ...svc.deps }, "crm", raw),
  };
}, (f) => f.svc.close());

function test(name: string, fn: (f: InspectorFixture) => Promise<void>): void {
  Deno.test({
    name: `admin inspector ${name}`,
    sanitizeOps: false,
    sanitizeResources: false,
    fn: async () => await fn(await fixture()),
  });
}

test("finds a good request valid, parsed and planned", async ({ good, inspect }) => {
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

test("diagnoses URL-safe re-encoding of the payload", async ({ app, json, inspect }) => {
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

test("diagnoses the JSON re-serialized after signing", async ({ app, json, inspect }) => {
  const pretty = encodeBase64(JSON.stringify(JSON.parse(json), null, 2));
  const signedPretty = `${await hmacBase64(pretty, app.apiKey)}.${pretty}`;
  const compact = encodeBase64(json);
  const r = await inspect(`${signedPretty.split(".")[0]}.${compact}`);
  assert.match(r.causes[0], /re-encoded after signing/);
});

test("diagnoses an HMAC over the JSON instead of the Base64", async ({ app, json, good, inspect }) => {
  const encoded = good.split(".")[1];
  const r = await inspect(`${await hmacBase64(json, app.apiKey)}.${encoded}`);
  assert.match(r.causes[0], /over the JSON text instead of its Base64/);
});

test("diagnoses another app's key, and an unknown key", async ({ other, json, inspect }) => {
  const r = await inspect(await signPayload(json, other.apiKey));
  assert.match(r.causes[0], /another app, helpdesk/);
  const unknown = await inspect(await signPayload(json, "unknown-key-0123456789"));
  assert.match(unknown.causes.at(-1)!, /Wrong key/);
});

test("never calls a payload valid without saying its signature did not verify", async (f) => {
  const r = await f.inspect(await signPayload(f.json, "unknown-key-0123456789"));
  assert.equal(r.signature, "invalid");
  assert.match(r.validation!.message, /^Valid launch payload, but its signature did not verify/);
});

test("reports malformed values and unknown apps, and writes nothing", async (f) => {
  const { svc, good, inspect } = f;
  const r = await inspect("no-dot-here");
  assert.equal(r.signature, "malformed");
  const notJson = await inspect(`${good.split(".")[0]}.${encodeBase64("not json")}`);
  assert.equal(notJson.decodeError, "The payload is not JSON: it breaks at line 1, column 2");
  await assert.rejects(inspectSignedRequest({ ...svc.deps }, "nope", good), /Unknown application/);
  await inspect(good);
  const [{ count }] = await svc.db.sql`select count(*) from launches`;
  assert.equal(count, 0, "nothing written");
});

Deno.test("admin launch log masks secret-looking keys at any depth", () => {
  assert.deepEqual(
    maskLaunchPayload({ a: 1, api_key: "k", nested: [{ Password: "p", name: "x" }], token: null }),
    { a: 1, api_key: "••••••", nested: [{ Password: "••••••", name: "x" }], token: "••••••" },
  );
  // Credentials inside a URL (a CRM's instanceUrl, say) are masked wherever the URL is.
  assert.deepEqual(
    maskLaunchPayload({
      client: { instanceUrl: "https://admin:s3cret@crm.example.com/x" },
      note: "see ftp://u@files.example.com and https://plain.example.com/a@b",
    }),
    {
      client: { instanceUrl: "https://••••••@crm.example.com/x" },
      note: "see ftp://••••••@files.example.com and https://plain.example.com/a@b",
    },
  );
});
