/**
 * The signer's default check: the portal's dry run. A payload the launch would refuse comes back
 * field by field as 400; the host's set-up problems (wrong key, portal down) are 502; "none"
 * skips the check. One in-process service (embedded database) for the file.
 */
import assert from "node:assert/strict";
import { verifySignedRequest } from "../../server/launch/signed_request.ts";
import { createSignHandler, type SignHandlerOptions } from "../../widget/signer/mod.ts";
import { pglite } from "../helpers/db.ts";
import { createTestApp, type TestApp } from "../helpers/launch.ts";
import { startTestService, type TestService } from "../helpers/service.ts";
import { sharedFixture } from "../helpers/shared.ts";
import { contact, user } from "./signer_fixture.ts";

const opts = { sanitizeOps: false, sanitizeResources: false };
const fixture = sharedFixture(async () => {
  const svc = await startTestService(pglite);
  const app = await createTestApp(svc, await svc.adminToken(), "crm", {
    replayProtection: "required",
  });
  return { svc, app };
}, ({ svc }) => svc.close());

function handler(
  svc: TestService,
  app: TestApp,
  extra: Partial<SignHandlerOptions> = {},
): (req: Request) => Promise<Response> {
  return createSignHandler({
    portalUrl: "http://portal.test/portal",
    appName: app.appName,
    apiKey: app.apiKey,
    user: () => user,
    allow: Object.keys(contact),
    fetch: async (url, init) => await svc.app.fetch(new Request(url, init)),
    ...extra,
  });
}

const post = (parameters: unknown) =>
  new Request("https://crm.example.com/sign", {
    method: "POST",
    body: JSON.stringify({ parameters }),
  });

Deno.test(
  "signer: by default the portal's dry run approves, and nothing is written",
  opts,
  async () => {
    const { svc, app } = await fixture();
    const [{ n: before }] = await svc.db.sql`select count(*)::int as n from launches`;
    const res = await handler(svc, app)(post(contact));
    const body = await res.json();
    assert.equal(res.status, 200, JSON.stringify(body));
    const verified = verifySignedRequest(body.signedRequest, [app.apiKey]);
    assert.match(String((verified.payload as { nonce: string }).nonce), /^[0-9a-f-]{36}$/);
    const [{ n: after }] = await svc.db.sql`select count(*)::int as n from launches`;
    assert.equal(after, before, "the dry run writes no launch record");
    // The approved request still launches: the dry run did not use its nonce up.
    const launched = await svc.request(`/portal/api/auth/app/${app.appName}`, {
      method: "POST",
      headers: { Accept: "application/json" },
      body: new URLSearchParams({ signed_request: body.signedRequest }),
    });
    assert.equal(launched.status, 200, await launched.clone().text());
    await launched.body?.cancel();
  },
);

Deno.test("signer: the dry run's refusals come back field by field", opts, async () => {
  const { svc, app } = await fixture();
  const res = await handler(svc, app)(post({ ...contact, contactEmail: "nope" }));
  assert.equal(res.status, 400);
  const body = await res.json();
  assert.deepEqual(body.errors.map((e: { path: string }) => e.path), [
    "context.environment.parameters.contactEmail",
  ]);
  assert.equal(typeof body.message, "string");
});

Deno.test("signer: a wrong key or a portal that cannot be reached is a 502", opts, async () => {
  const { svc, app } = await fixture();
  const wrongKey = await handler(svc, app, { apiKey: "not-the-key-0123456789" })(post(contact));
  assert.equal(wrongKey.status, 502);
  assert.match((await wrongKey.json()).message, /dry run answered 401/);
  const down = await handler(svc, app, {
    fetch: () => Promise.reject(new TypeError("connection refused")),
  })(post(contact));
  assert.equal(down.status, 502);
  assert.match((await down.json()).message, /could not be reached: TypeError: connection refused/);
  const unchecked = await handler(svc, app, {
    validate: "none",
    fetch: () => Promise.reject(new Error("must not be called")),
  })(post({ ...contact, contactEmail: "nope" }));
  assert.equal(unchecked.status, 200, "validate: none signs without asking");
  await unchecked.body?.cancel();
});
