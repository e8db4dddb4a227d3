import assert from "node:assert/strict";
import { verifySignedRequest } from "../../server/launch/signed_request.ts";
import { createSignHandler, signLaunch } from "../../widget/signer/mod.ts";
import { validateLaunchPayload } from "../../widget/signer/validate.ts";
import { contact, user } from "./signer_fixture.ts";

interface Vector {
  name: string;
  apiKey: string;
  payloadJson: string;
  signedRequest: string;
}
const vectors: Vector[] = JSON.parse(
  await Deno.readTextFile(new URL("../fixtures/signed_request.json", import.meta.url)),
).cases;

const KEY = "Zk3pQ9vX2mL7rT4wY8bN1cD5fH6jK0sA";

Deno.test("signer: signLaunch reproduces every shared vector", async () => {
  assert.ok(vectors.length >= 4);
  for (const v of vectors) {
    assert.equal(await signLaunch(v.payloadJson, v.apiKey), v.signedRequest, v.name);
  }
});

Deno.test("signer: UTF-8 names round-trip through the service's verifier", async () => {
  const payload = {
    algorithm: "HMACSHA256",
    context: { user, environment: { parameters: contact } },
  };
  const signed = await signLaunch(payload, KEY);
  const verified = verifySignedRequest(signed, [KEY]);
  assert.deepEqual(verified.payload, payload);
});

function handler(extra: Partial<Parameters<typeof createSignHandler>[0]> = {}) {
  return createSignHandler({
    portalUrl: "https://portal.example.com/portal/",
    appName: "crm",
    apiKey: KEY,
    user: () => user,
    allow: Object.keys(contact),
    validate: validateLaunchPayload,
    ...extra,
  });
}
const post = (body: unknown) =>
  new Request("https://crm.example.com/sign", {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });

Deno.test("signer: createSignHandler answers {action, signedRequest} the service accepts", async () => {
  const res = await handler()(post({ parameters: contact }));
  assert.equal(res.status, 200);
  assert.equal(res.headers.get("Cache-Control"), "no-store");
  const body = await res.json();
  assert.equal(body.action, "https://portal.example.com/portal/api/auth/app/crm");
  const verified = verifySignedRequest(body.signedRequest, [KEY]);
  const payload = verified.payload as { context: { user: unknown; environment: unknown } };
  assert.deepEqual(payload.context.user, user, "the user comes from the server, not the page");
  assert.deepEqual(payload.context.environment, { parameters: contact });
});

Deno.test("signer: the server adds its own parameters; the page cannot add others", async () => {
  const h = handler({
    allow: ["contactId"],
    parameters: (_req, requested) => ({ ...contact, ...requested, referenceNumber: "SRV1" }),
  });
  const ok = await h(post({ parameters: { contactId: "C7" } }));
  const signed = (await ok.json()).signedRequest;
  const params = ((verifySignedRequest(signed, [KEY])).payload as {
    context: { environment: { parameters: Record<string, unknown> } };
  }).context.environment.parameters;
  assert.equal(params.contactId, "C7");
  assert.equal(params.referenceNumber, "SRV1");
  const refused = await h(post({ parameters: { contactId: "C7", sessionId: 3, assign: true } }));
  assert.equal(refused.status, 400);
  assert.deepEqual((await refused.json()).errors.map((e: { path: string }) => e.path), [
    "parameters.sessionId",
    "parameters.assign",
  ]);
});

Deno.test("signer: the local validator returns the schema's rules field by field", async () => {
  const res = await handler()(post({
    parameters: { ...contact, contactEmail: "nope", contactPhone: "call me" },
  }));
  assert.equal(res.status, 400);
  const body = await res.json();
  assert.equal(body.message, "Invalid launch payload");
  assert.deepEqual(body.errors.map((e: { path: string }) => e.path).sort(), [
    "context.environment.parameters.contactEmail",
    "context.environment.parameters.contactPhone",
  ]);
});

Deno.test("signer: 401 without a user, 405 for GET, 400 for bad JSON", async () => {
  const noUser = await handler({ user: () => null })(post({ parameters: contact }));
  assert.equal(noUser.status, 401);
  assert.match((await noUser.json()).message, /Sign in/);
  const get = await handler()(new Request("https://crm.example.com/sign"));
  assert.equal(get.status, 405);
  assert.equal(get.headers.get("Allow"), "POST");
  const bad = await handler()(post("{"));
  assert.equal(bad.status, 400);
  await bad.body?.cancel();
  const notObject = await handler()(post({ parameters: [1] }));
  assert.equal(notObject.status, 400);
  assert.deepEqual((await notObject.json()).errors, [{
    path: "parameters",
    message: "expected an object",
  }]);
});
