/** SECRET_KEY rotation: with SECRET_KEY_PREVIOUS set, stored secrets are resealed at start. */
import assert from "node:assert/strict";
import { pglite } from "../../helpers/db.ts";
import { startService } from "../../../server/service.ts";
import { loadConfig } from "../../../server/config.ts";
import { signLaunch } from "../../helpers/launch.ts";
import { launchPayload } from "../../helpers/payload.ts";
import { ADMIN_CLIENT } from "../../helpers/service.ts";

const KEY_A = "old-secret-key-0123456789abcdefghijklmnop";
const KEY_B = "new-secret-key-0123456789abcdefghijklmnop";

Deno.test({
  name: "reseal: a SECRET_KEY rotation keeps every app launching, and binds values to their app",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const db = await pglite.open();
    const start = (env: Record<string, string>) =>
      startService(
        loadConfig({
          DATA_DIR: db.dataDir,
          LOG_LEVEL: "silent",
          PUBLIC_URL: "http://portal.test",
          BOOTSTRAP_CLIENT_ID: ADMIN_CLIENT.id,
          BOOTSTRAP_CLIENT_SECRET: ADMIN_CLIENT.secret,
          ...env,
        }),
        { db, demoData: false },
      );
    try {
      const first = await start({ SECRET_KEY: KEY_A });
      const tokenRes = await first.app.request("http://portal.test/api/v1/oauth2/token", {
        method: "POST",
        body: new URLSearchParams({
          grant_type: "client_credentials",
          client_id: ADMIN_CLIENT.id,
          client_secret: ADMIN_CLIENT.secret,
        }),
      });
      const token = (await tokenRes.json()).access_token;
      const create = async (appName: string) =>
        await (await first.app.request("http://portal.test/api/v1/admin/apps", {
          method: "POST",
          headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
          body: JSON.stringify({ appName, name: appName, authType: "signed_request" }),
        })).json();
      const a = await create("reseal-a");
      assert.ok(a.apiKey, JSON.stringify(a));
      const b = await create("reseal-b");
      const [before] = await db.sql`select api_key_sealed from apps where app_name = 'reseal-a'`;

      const second = await start({ SECRET_KEY: KEY_B, SECRET_KEY_PREVIOUS: KEY_A });
      const launch = async (svc: typeof second, app: { appName: string; apiKey: string }) =>
        (await svc.app.request(`http://portal.test/portal/api/auth/app/${app.appName}`, {
          method: "POST",
          headers: { Accept: "application/json" },
          body: new URLSearchParams({
            signed_request: await signLaunch(launchPayload(), app.apiKey),
          }),
        })).status;
      assert.equal(await launch(second, a), 200);
      const [after] = await db.sql`select api_key_sealed from apps where app_name = 'reseal-a'`;
      assert.notEqual(after.apiKeySealed, before.apiKeySealed, "resealed under the new key");
      assert.match(after.apiKeySealed, /^v2:/);

      const third = await start({ SECRET_KEY: KEY_B });
      assert.equal(await launch(third, b), 200, "the new key alone reads every value");

      // A sealed value copied into another app's row does not open there.
      await db.sql`update apps set api_key_sealed = ${after.apiKeySealed}
        where app_name = 'reseal-b'`;
      const fourth = await start({ SECRET_KEY: KEY_B });
      const refused = await fourth.app.request(
        "http://portal.test/portal/api/auth/app/reseal-b",
        {
          method: "POST",
          headers: { Accept: "application/json" },
          body: new URLSearchParams({
            signed_request: await signLaunch(launchPayload(), a.apiKey),
          }),
        },
      );
      assert.equal(
        refused.status,
        500,
        "the copied value does not decrypt: a server fault, logged",
      );
      await refused.body?.cancel();
    } finally {
      await db.close();
    }
  },
});
