/** The draining state in process (server/ops/drain.ts): /readyz, Connection: close, settled(). */
import assert from "node:assert/strict";
import { Hono } from "hono";
import { backends } from "../../helpers/db.ts";
import { startTestService } from "../../helpers/service.ts";
import { Drain } from "../../../server/ops/drain.ts";

Deno.test("drain: /readyz answers 503 draining and every response says Connection: close", async () => {
  const svc = await startTestService(backends.at(-1)!);
  try {
    const ready = await svc.request("/readyz");
    assert.equal(ready.status, 200);
    assert.equal(ready.headers.get("Connection"), null);
    await ready.body?.cancel();
    svc.drain.begin();
    const draining = await svc.request("/readyz");
    assert.equal(draining.status, 503);
    assert.deepEqual(await draining.json(), { status: "draining" });
    assert.equal(draining.headers.get("Connection"), "close");
    for (const path of ["/healthz", "/no-such-route", "/api/v1/admin/apps"]) {
      const res = await svc.request(path);
      assert.equal(res.headers.get("Connection"), "close", path);
      assert.ok(res.headers.get("X-Request-Id"), `${path} is otherwise the same response`);
      await res.body?.cancel();
    }
  } finally {
    await svc.close();
  }
});

Deno.test("drain: a response with immutable headers is copied to say Connection: close", async () => {
  const drain = new Drain();
  const app = new Hono();
  app.use("*", drain.middleware());
  app.get("/go", () => Response.redirect("http://example.com/there", 302));
  drain.begin();
  const res = await app.request("/go");
  assert.equal(res.status, 302);
  assert.equal(res.headers.get("Location"), "http://example.com/there");
  assert.equal(res.headers.get("Connection"), "close");
});

Deno.test("drain: settled() waits for the requests in flight at the call, not later ones", async () => {
  const drain = new Drain();
  const app = new Hono();
  app.use("*", drain.middleware());
  const gates = new Map<string, () => void>();
  app.get("/slow/:id", async (c) => {
    await new Promise<void>((resolve) => gates.set(c.req.param("id"), resolve));
    return c.text("done");
  });
  const tick = () => new Promise((r) => setTimeout(r, 20));
  const first = app.request("/slow/1");
  await tick();
  assert.equal(drain.inFlight, 1);
  let settled = false;
  const waiting = drain.settled().then(() => settled = true);
  const second = app.request("/slow/2");
  await tick();
  assert.equal(drain.inFlight, 2);
  assert.equal(settled, false, "not settled while /slow/1 runs");
  gates.get("1")!();
  await (await first).text();
  await waiting;
  assert.equal(settled, true, "settled though /slow/2, which came later, still runs");
  assert.equal(drain.inFlight, 1);
  gates.get("2")!();
  await (await second).text();
  assert.equal(drain.inFlight, 0);
});
