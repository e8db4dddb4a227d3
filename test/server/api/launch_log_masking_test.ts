/**
 * The REST launch log shows a launch's payload masked exactly as the admin screen does (one
 * masking function), and every record says which key verified it and its replay protection.
 */
import assert from "node:assert/strict";
import { backends } from "../../helpers/db.ts";
import { sharedFixture, uniqueId } from "../../helpers/shared.ts";
import { startTestService, type TestService } from "../../helpers/service.ts";
import { createTestApp, launchOk } from "../../helpers/launch.ts";
import { launchPayload } from "../../helpers/payload.ts";
import { getAs, signInAdmin } from "../../helpers/admin_screens.ts";
import { MASKED_VALUE } from "../../../server/launch/payload_mask.ts";

const ADMIN = { email: "root@example.com", password: "admin-password-123" };
const PASSWORD = "hunter2-launch-password";
const SESSION_TOKEN = "st-0123456789-session-token";

/** Reverses hono/jsx's HTML escaping of text. */
function unescape(html: string): string {
  return html.replaceAll("&lt;", "<").replaceAll("&gt;", ">").replaceAll("&quot;", '"')
    .replaceAll("&#39;", "'").replaceAll("&amp;", "&");
}

/** A launch whose payload carries a password and a session token (kept in the stored payload). */
async function launchWithSecrets(
  svc: TestService,
  admin: string,
): Promise<{ appName: string; launchId: number }> {
  const app = await createTestApp(svc, admin, uniqueId("mask-").toLowerCase());
  const payload = launchPayload({ sessionToken: SESSION_TOKEN }, { password: PASSWORD });
  const { launchId } = await launchOk(svc, app, payload);
  const [row] = await svc.db.sql`select payload::text as text from launches where id = ${launchId}`;
  assert.ok(row.text.includes(PASSWORD), "the stored payload keeps the key (the premise)");
  assert.ok(row.text.includes(SESSION_TOKEN));
  return { appName: app.appName, launchId };
}

for (const backend of backends) {
  const service = sharedFixture(
    () => startTestService(backend, { ADMIN_EMAIL: ADMIN.email, ADMIN_PASSWORD: ADMIN.password }),
    (svc) => svc.close(),
  );
  const test = (name: string, fn: (svc: TestService) => Promise<void>) =>
    Deno.test({
      name: `REST launch log ${name} [${backend.name}]`,
      sanitizeOps: false,
      sanitizeResources: false,
      fn: async () => await fn(await service()),
    });

  test("masks secret-looking payload keys exactly as the admin screen", async (svc) => {
    const admin = await svc.adminToken();
    const { launchId } = await launchWithSecrets(svc, admin);
    const res = await svc.api("GET", `/api/v1/launches/${launchId}`, admin);
    assert.equal(res.status, 200);
    const text = await res.text();
    assert.ok(!text.includes(PASSWORD), "no password in clear");
    assert.ok(!text.includes(SESSION_TOKEN), "no session token in clear");
    const body = JSON.parse(text);
    assert.equal(body.payload.context.user.password, MASKED_VALUE);
    assert.equal(body.payload.context.environment.parameters.sessionToken, MASKED_VALUE);
    assert.equal(body.payload.context.user.email, "ada@example.com", "the rest is shown");
    const signedIn = await signInAdmin(svc, ADMIN);
    const page = await (await getAs(svc, signedIn, `/admin/launches/${launchId}`)).text();
    const shown = page.match(/<pre data-testid="payload">([^<]*)<\/pre>/)?.[1];
    assert.ok(shown, "the screen shows the payload");
    assert.deepEqual(body.payload, JSON.parse(unescape(shown)), "the same masking");
  });

  test("masks them in the list too", async (svc) => {
    const admin = await svc.adminToken();
    const { appName, launchId } = await launchWithSecrets(svc, admin);
    const res = await svc.api("GET", `/api/v1/launches?app=${appName}`, admin);
    assert.equal(res.status, 200);
    const text = await res.text();
    assert.ok(!text.includes(PASSWORD) && !text.includes(SESSION_TOKEN), "no secret in clear");
    const item = JSON.parse(text).items.find((l: { id: number }) => l.id === launchId);
    assert.equal(item.payload.context.user.password, MASKED_VALUE);
  });

  test("records say which key verified them and their protection", async (svc) => {
    const admin = await svc.adminToken();
    const { appName, launchId } = await launchWithSecrets(svc, admin);
    const one = await (await svc.api("GET", `/api/v1/launches/${launchId}`, admin)).json();
    assert.equal(one.keyUsed, "current");
    assert.equal(one.protection, "protected");
    const list = await (await svc.api("GET", `/api/v1/launches?app=${appName}`, admin)).json();
    assert.equal(list.items.length, 1);
    assert.equal(list.items[0].keyUsed, "current");
    assert.equal(list.items[0].protection, "protected");
  });

  test("a launch that failed before verifying has keyUsed and protection null", async (svc) => {
    const admin = await svc.adminToken();
    const app = await createTestApp(svc, admin, uniqueId("mask-").toLowerCase());
    const res = await svc.request(`/portal/api/auth/app/${app.appName}`, {
      method: "POST",
      headers: { Accept: "application/json" },
      body: new URLSearchParams({ signed_request: "bm90LXNpZ25lZA.eyJhIjoxfQ" }),
    });
    assert.equal(res.status >= 400 && res.status < 500, true);
    await res.body?.cancel();
    const list = await (await svc.api("GET", `/api/v1/launches?app=${app.appName}`, admin))
      .json();
    assert.equal(list.items.length, 1);
    assert.equal(list.items[0].keyUsed, null);
    assert.equal(list.items[0].protection, null);
  });
}
