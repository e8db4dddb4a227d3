/** The admin launch log shows each launch's warnings and lists the launches that have some. */
import assert from "node:assert/strict";
import { pglite } from "../../helpers/db.ts";
import { startTestService, type TestService } from "../../helpers/service.ts";
import { sharedFixture } from "../../helpers/shared.ts";
import { createTestApp, launchOk } from "../../helpers/launch.ts";
import { launchPayload } from "../../helpers/payload.ts";
import { postSignIn } from "../../helpers/sign_in.ts";

const opts = { sanitizeOps: false, sanitizeResources: false };
const service = sharedFixture(
  () =>
    startTestService(pglite, {
      ADMIN_EMAIL: "root@example.com",
      ADMIN_PASSWORD: "root-password-0123456789",
    }),
  (svc: TestService) => svc.close(),
);

Deno.test(
  "admin launch log: warnings are listed, filterable and shown in the detail",
  opts,
  async () => {
    const svc = await service();
    const app = await createTestApp(svc, await svc.adminToken(), "warned");
    const warned = await launchOk(svc, app, launchPayload({ AccountId: "0015e00000ABCDE" }));
    const clean = await launchOk(
      svc,
      app,
      launchPayload({ contactId: "C2", contactEmail: "c2@x.org" }),
    );
    const signIn = await postSignIn(svc, "/admin/login", {
      email: "root@example.com",
      password: "root-password-0123456789",
    });
    const cookie = signIn.headers.get("Set-Cookie")!.split(";")[0];
    const page = async (path: string) =>
      await (await svc.request(path, { headers: { Cookie: cookie } })).text();
    const filtered = await page("/admin/launches?warnings=1");
    assert.ok(filtered.includes(`/admin/launches/${warned.launchId}"`), "the warned launch");
    assert.ok(!filtered.includes(`/admin/launches/${clean.launchId}"`), "not the clean one");
    assert.match(filtered, /name="warnings" value="1" checked/);
    const all = await page("/admin/launches");
    assert.ok(all.includes(`/admin/launches/${clean.launchId}"`));
    const detail = await page(`/admin/launches/${warned.launchId}`);
    assert.match(
      detail,
      /<code>ignored_field<\/code> <code>context\.environment\.parameters\.AccountId<\/code>/,
    );
  },
);
