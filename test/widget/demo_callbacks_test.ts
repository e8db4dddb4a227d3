/** The demo's mock CRM receives callbacks, verifies them and lists them for its page. */
import assert from "node:assert/strict";
import { pglite } from "../helpers/db.ts";
import { startTestService } from "../helpers/service.ts";
import { createTestApp } from "../helpers/launch.ts";
import { waitUntil } from "../helpers/crm_server.ts";
import { demoApp } from "../../widget/demo/app.ts";
import { CALLBACK_ENV } from "../server/callbacks/fixture.ts";

Deno.test("demo: the mock CRM verifies callbacks and lists them live", {
  sanitizeOps: false,
  sanitizeResources: false,
}, async () => {
  const svc = await startTestService(pglite, CALLBACK_ENV);
  const ac = new AbortController();
  try {
    const admin = await svc.adminToken();
    let handler: (req: Request) => Promise<Response> = () =>
      Promise.resolve(new Response(null, { status: 503 }));
    const server = Deno.serve(
      { hostname: "127.0.0.1", port: 0, signal: ac.signal, onListen() {} },
      (req) => handler(req),
    );
    const crm = `http://127.0.0.1:${server.addr.port}`;
    const app = await createTestApp(svc, admin, "democb", { callbackUrl: `${crm}/callbacks` });
    const secret = (app as unknown as { callbackSecret: string }).callbackSecret;
    handler = demoApp({
      portalUrl: "http://portal.test/portal",
      appName: "democb",
      apiKey: app.apiKey,
      callbackSecret: secret,
    });
    const sent = await (await svc.api("POST", "/api/v1/admin/apps/democb/callbacks/test", admin))
      .json();
    assert.equal(sent.delivered, true, JSON.stringify(sent));
    assert.equal(sent.attempt.statusCode, 204);
    const events = await waitUntil(async () => {
      const list = await (await fetch(`${crm}/callbacks/events`)).json();
      return list.length ? list : undefined;
    }, "the demo's list");
    assert.equal(events[0].type, "ping");
    assert.equal(events[0].verified, true);
    assert.equal(events[0].webhookId, sent.webhookId);
    // A forged callback is refused and shown as not verified.
    const forged = await fetch(`${crm}/callbacks`, {
      method: "POST",
      headers: { "webhook-id": "msg_x", "webhook-timestamp": "1", "webhook-signature": "v1,x" },
      body: '{"type":"session.closed"}',
    });
    assert.equal(forged.status, 400);
    await forged.body?.cancel();
    const page = await (await fetch(`${crm}/cases/CASE00017`)).text();
    assert.match(page, /id="callbacks" aria-live="polite"/);
  } finally {
    ac.abort();
    await svc.close();
  }
});
