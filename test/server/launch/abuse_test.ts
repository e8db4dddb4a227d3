/**
 * Bounded unauthenticated writes: a launch for an unknown app writes no row, stored names and
 * user agents are truncated, and failed launches and token requests are rate-limited per address.
 */
import assert from "node:assert/strict";
import { failureLimitedService, type TestService } from "../../helpers/service.ts";
import { createTestApp, signLaunch } from "../../helpers/launch.ts";
import { launchPayload } from "../../helpers/payload.ts";

const LIMIT = 3;
const service = failureLimitedService(LIMIT);
const opts = { sanitizeOps: false, sanitizeResources: false };

async function launches(svc: TestService): Promise<number> {
  const [row] = await svc.db.sql`select count(*)::int as n from launches`;
  return row.n;
}

function from(address: string, headers: Record<string, string> = {}) {
  return { "X-Forwarded-For": address, Accept: "application/json", ...headers };
}

Deno.test("abuse: launches for an unknown app write no launch-log row", opts, async () => {
  const svc = await service();
  const before = await launches(svc);
  for (let i = 0; i < 2; i++) {
    const res = await svc.request(`/portal/api/auth/app/${"nope".repeat(50)}`, {
      method: "POST",
      headers: from(`10.1.0.${i}`),
      body: new URLSearchParams({ signed_request: "x.y" }),
    });
    assert.equal(res.status, 404);
    assert.equal((await res.json()).code, "app_not_found");
  }
  assert.equal(await launches(svc), before);
});

Deno.test("abuse: the stored user agent is cut at 256 characters", opts, async () => {
  const svc = await service();
  const app = await createTestApp(svc, await svc.adminToken(), "abuse-ua");
  const res = await svc.request(`/portal/api/auth/app/${app.appName}`, {
    method: "POST",
    headers: from("10.2.0.1", { "User-Agent": "U".repeat(5000) }),
    body: new URLSearchParams({ signed_request: await signLaunch(launchPayload(), app.apiKey) }),
  });
  assert.equal(res.status, 200, await res.text());
  const [row] = await svc.db.sql`select user_agent from launches order by id desc limit 1`;
  assert.equal(row.userAgent.length, 256);
});

Deno.test("abuse: failed launches from one address answer 429 after the limit", opts, async () => {
  const svc = await service();
  const app = await createTestApp(svc, await svc.adminToken(), "abuse-launch");
  const attempt = (address: string, signed: string) =>
    svc.request(`/portal/api/auth/app/${app.appName}`, {
      method: "POST",
      headers: from(address),
      body: new URLSearchParams({ signed_request: signed }),
    });
  const statuses: number[] = [];
  for (let i = 0; i < LIMIT + 2; i++) {
    const res = await attempt("10.3.0.1", "bad.signature");
    statuses.push(res.status);
    if (res.status === 429) {
      assert.match(res.headers.get("Retry-After")!, /^\d+$/);
      assert.equal((await res.json()).code, "too_many_failures");
    } else await res.body?.cancel();
  }
  assert.deepEqual(statuses, [...Array(LIMIT).fill(401), 429, 429]);
  const other = await attempt("10.3.0.2", await signLaunch(launchPayload(), app.apiKey));
  assert.equal(other.status, 200, "another address is not affected");
  await other.body?.cancel();
});

Deno.test("abuse: a burst of failing launches stops at the limit plus the gate", opts, async () => {
  const svc = await service();
  const app = await createTestApp(svc, await svc.adminToken(), "abuse-burst");
  const rows = async () => {
    const [row] = await svc.db.sql`select count(*)::int as n from launches
      where app_name = ${app.appName}`;
    return row.n;
  };
  const burst = LIMIT + 20;
  const capacity = svc.deps.launchGate.capacity;
  assert.ok(capacity < 20, `the gate (${capacity}) is smaller than the burst's excess`);
  const statuses = await Promise.all(
    Array.from({ length: burst }, async () => {
      const res = await svc.request(`/portal/api/auth/app/${app.appName}`, {
        method: "POST",
        headers: from("10.6.0.1"),
        body: new URLSearchParams({ signed_request: "bad.signature" }),
      });
      await res.body?.cancel();
      return res.status;
    }),
  );
  const failed = statuses.filter((s) => s === 401).length;
  assert.equal(failed + statuses.filter((s) => s === 429).length, burst, String(statuses));
  // Every launch passed the first check at once; the gate's second check stopped the queue.
  assert.ok(failed <= LIMIT + capacity, `${failed} failed of ${burst}: ${statuses}`);
  assert.equal(await rows(), failed, "a launch-log row for each failure, none for a 429");
});

Deno.test("abuse: refused continue forms count as failed launches (429)", opts, async () => {
  const svc = await service();
  const forged = { login: "A".repeat(43), session: "1", launch: "1" };
  const attempt = (address: string) =>
    svc.request("/portal/api/auth/continue", {
      method: "POST",
      headers: from(address, { Accept: "text/html", "Sec-Fetch-Site": "same-origin" }),
      body: new URLSearchParams(forged),
    });
  const statuses: number[] = [];
  for (let i = 0; i < LIMIT + 1; i++) {
    const res = await attempt("10.5.0.1");
    statuses.push(res.status);
    await res.body?.cancel();
  }
  assert.deepEqual(statuses, [...Array(LIMIT).fill(400), 429]);
  const other = await attempt("10.5.0.2");
  assert.equal(other.status, 400, "another address is not affected");
  await other.body?.cancel();
});

Deno.test(
  "abuse: failed token requests from one address answer 429 after the limit",
  opts,
  async () => {
    const svc = await service();
    const token = (address: string, secret: string) =>
      svc.request("/api/v1/oauth2/token", {
        method: "POST",
        headers: { "X-Forwarded-For": address },
        body: new URLSearchParams({
          grant_type: "client_credentials",
          client_id: "test-admin",
          client_secret: secret,
        }),
      });
    const statuses: number[] = [];
    for (let i = 0; i < LIMIT + 1; i++) {
      const res = await token("10.4.0.1", "wrong-secret");
      statuses.push(res.status);
      await res.body?.cancel();
    }
    assert.deepEqual(statuses, [...Array(LIMIT).fill(400), 429], "invalid_client, then 429");
    const ok = await token("10.4.0.2", "test-admin-secret-0123456789abcdefghijkl");
    assert.equal(ok.status, 200);
    await ok.body?.cancel();
  },
);
