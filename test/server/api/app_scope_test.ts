/** REST tenancy: an app's client reaches only its own app's rows; admin tokens reach all. */
import assert from "node:assert/strict";
import { backends } from "../../helpers/db.ts";
import { startTestService, type TestService } from "../../helpers/service.ts";
import { sharedFixture, uniqueId } from "../../helpers/shared.ts";
import { appClientToken, createTestApp, launchOk } from "../../helpers/launch.ts";
import { launchPayload } from "../../helpers/payload.ts";

const opts = { sanitizeOps: false, sanitizeResources: false };

for (const backend of backends) {
  const service = sharedFixture(
    () => startTestService(backend),
    (svc: TestService) => svc.close(),
  );

  const setUp = async () => {
    const svc = await service();
    const admin = await svc.adminToken();
    const scopes = { clientScopes: ["sessions:read", "sessions:write"] };
    const a = await createTestApp(svc, admin, uniqueId("sa"), scopes);
    const b = await createTestApp(svc, admin, uniqueId("sb"), scopes);
    const agent = uniqueId("ag");
    const inA = await launchOk(
      svc,
      a,
      launchPayload({ contactId: uniqueId("C") }, { id: agent, email: `${agent}@example.com` }),
    );
    return {
      svc,
      admin,
      a,
      b,
      inA,
      tokenA: await appClientToken(svc, a),
      tokenB: await appClientToken(svc, b),
    };
  };

  Deno.test(
    `REST scope: app B's client gets 404 on app A's session, customer and agent [${backend.name}]`,
    opts,
    async () => {
      const { svc, inA, tokenA, tokenB } = await setUp();
      for (
        const path of [
          `/api/v1/sessions/${inA.sessionId}`,
          `/api/v1/customers/${inA.customerId}`,
          `/api/v1/agents/${inA.agentId}`,
        ]
      ) {
        const own = await svc.api("GET", path, tokenA);
        assert.equal(own.status, 200, `${path}: own app`);
        await own.body?.cancel();
        const other = await svc.api("GET", path, tokenB);
        assert.equal(other.status, 404, `${path}: another app's`);
        await other.body?.cancel();
      }
      const patch = await svc.api("PATCH", `/api/v1/sessions/${inA.sessionId}`, tokenB, {
        status: "closed",
      });
      assert.equal(patch.status, 404);
      await patch.body?.cancel();
      const [row] = await svc.db.sql`select status from sessions where id = ${inA.sessionId}`;
      assert.equal(row.status, "open", "app B changed nothing");
    },
  );

  Deno.test(
    `REST scope: lists hold the caller's app only; admin sees all or ?app= [${backend.name}]`,
    opts,
    async () => {
      const { svc, admin, a, inA, tokenA, tokenB } = await setUp();
      const ids = async (path: string, token: string) =>
        ((await (await svc.api("GET", path, token)).json()).items as { id: number }[]).map((i) =>
          i.id
        );
      assert.ok((await ids("/api/v1/sessions?limit=200", tokenA)).includes(inA.sessionId));
      assert.ok(!(await ids("/api/v1/sessions?limit=200", tokenB)).includes(inA.sessionId));
      assert.ok(!(await ids("/api/v1/customers?limit=200", tokenB)).includes(inA.customerId));
      assert.ok(!(await ids("/api/v1/agents?limit=200", tokenB)).includes(inA.agentId));
      // The launch log needs the admin scope; ?app= narrows an admin client to one app.
      const launchesOfA = await ids(`/api/v1/launches?limit=200&app=${a.appName}`, admin);
      assert.ok(launchesOfA.includes(inA.launchId));
      const denied = await svc.api("GET", "/api/v1/launches", tokenB);
      assert.equal(denied.status, 403, "an app client without admin scope reads no log");
      await denied.body?.cancel();
      assert.ok((await ids("/api/v1/sessions?limit=200", admin)).includes(inA.sessionId));
      const onlyA = await ids(`/api/v1/sessions?limit=200&app=${a.appName}`, admin);
      assert.ok(onlyA.includes(inA.sessionId));
      const res = await svc.api("GET", "/api/v1/sessions?app=no-such-app", admin);
      assert.equal(res.status, 404);
      await res.body?.cancel();
    },
  );
}
