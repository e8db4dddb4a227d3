/**
 * `deno task migrate-to-postgres`: a populated embedded database moves to the machine's PostgreSQL
 * and the service runs on the result with the same keys, clients and data (PostgreSQL only: runs
 * when TEST_DATABASE_URL is set).
 */
import assert from "node:assert/strict";
import postgres from "postgres";
import { TEST_DATABASE_URL } from "../helpers/db.ts";
import { loadConfig } from "../../server/config.ts";
import { startService } from "../../server/service.ts";
import { signLaunch } from "../helpers/launch.ts";
import { launchPayload } from "../helpers/payload.ts";
import { uniqueId } from "../helpers/shared.ts";

const TOOL = new URL("../../tools/migrate_to_postgres.ts", import.meta.url).pathname;
const CLIENT = { id: "move-admin", secret: "move-admin-secret-0123456789abcdefghijkl" };

Deno.test({
  name: "migrate-to-postgres: the embedded data moves, keys and tokens still work",
  ignore: !TEST_DATABASE_URL,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const dataDir = await Deno.makeTempDir({ prefix: "pl-move-" });
    const admin = postgres(TEST_DATABASE_URL, { max: 1, onnotice: () => {} });
    const name = `pl_test_move_${crypto.randomUUID().replaceAll("-", "").slice(0, 12)}`;
    await admin.unsafe(`create database ${name}`);
    const url = new URL(TEST_DATABASE_URL);
    url.pathname = `/${name}`;
    const env = {
      DATA_DIR: dataDir,
      LOG_LEVEL: "silent",
      PUBLIC_URL: "http://portal.test",
      BOOTSTRAP_CLIENT_ID: CLIENT.id,
      BOOTSTRAP_CLIENT_SECRET: CLIENT.secret,
    };
    try {
      // A populated embedded database: an app, its client, launches, a custom field.
      const embedded = await startService(loadConfig(env), { demoData: false });
      const request = (path: string, init?: RequestInit) =>
        embedded.app.request(`http://portal.test${path}`, init);
      const tokenOf = async (svc: typeof request, id: string, secret: string) =>
        (await (await svc("/api/v1/oauth2/token", {
          method: "POST",
          body: new URLSearchParams({
            grant_type: "client_credentials",
            client_id: id,
            client_secret: secret,
          }),
        })).json()).access_token as string;
      const adminToken = await tokenOf(request, CLIENT.id, CLIENT.secret);
      const app = await (await request("/api/v1/admin/apps", {
        method: "POST",
        headers: { Authorization: `Bearer ${adminToken}`, "Content-Type": "application/json" },
        body: JSON.stringify({ appName: "moved", name: "Moved", authType: "signed_request" }),
      })).json();
      const launch = async (svc: typeof request) => {
        const res = await svc("/portal/api/auth/app/moved", {
          method: "POST",
          headers: { Accept: "application/json" },
          body: new URLSearchParams({
            signed_request: await signLaunch(
              launchPayload({ contactId: uniqueId("C"), referenceId: uniqueId("R") }),
              app.apiKey,
            ),
          }),
        });
        assert.equal(res.status, 200);
        return await res.json();
      };
      const before = [];
      for (let i = 0; i < 5; i++) before.push(await launch(request));
      await embedded.close();

      const run = await new Deno.Command(Deno.execPath(), {
        args: ["run", "-A", TOOL, url.href],
        env: { DATA_DIR: dataDir },
        stdout: "piped",
        stderr: "piped",
      }).output();
      const out = new TextDecoder().decode(run.stdout) + new TextDecoder().decode(run.stderr);
      assert.equal(run.code, 0, out);
      assert.match(out, /sessions: 5 rows/);
      assert.match(out, /counts match/);
      const secretKey = (await Deno.readTextFile(`${dataDir}/secret_key`)).trim();
      assert.ok(out.includes(`DATABASE_URL='${url.href}' SECRET_KEY='${secretKey}'`));

      const again = await new Deno.Command(Deno.execPath(), {
        args: ["run", "-A", TOOL, url.href],
        env: { DATA_DIR: dataDir },
        stdout: "piped",
        stderr: "piped",
      }).output();
      assert.equal(again.code, 1, "a database that is not empty is refused");
      assert.match(new TextDecoder().decode(again.stderr), /not empty/);

      const moved = await startService(
        loadConfig({ ...env, DATABASE_URL: url.href, SECRET_KEY: secretKey }),
        { demoData: false },
      );
      try {
        const on = (path: string, init?: RequestInit) =>
          moved.app.request(`http://portal.test${path}`, init);
        const appToken = await tokenOf(on, app.clientId, app.clientSecret);
        const session = await (await on(`/api/v1/sessions/${before[4].sessionId}`, {
          headers: { Authorization: `Bearer ${appToken}` },
        })).json();
        assert.equal(session.id, before[4].sessionId, "the app's client reads its moved session");
        const next = await launch(on);
        assert.ok(next.sessionId > before[4].sessionId, "ids continue after the moved ones");
        assert.ok(next.launchId > before[4].launchId);
      } finally {
        await moved.close();
      }
    } finally {
      await admin.unsafe(`drop database if exists ${name} with (force)`);
      await admin.end();
      await Deno.remove(dataDir, { recursive: true });
    }
  },
});
