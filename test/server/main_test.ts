/** The real entry point as a process: first start, restart, bad config, flags, graceful stop. */
import assert from "node:assert/strict";

const opts = { sanitizeOps: false, sanitizeResources: false };
import { backends } from "../helpers/db.ts";
import { prepareDatabase } from "./ops/fixture.ts";
import {
  FLAGS,
  freePort,
  MAIN,
  type Running,
  startProcess as start,
  startRecordOf,
  stopProcess,
} from "../helpers/process.ts";

const stop = (running: Running) => stopProcess(running);

Deno.test({
  name: "deno task start: first start prints demo credentials that work; restart keeps data",
  ...opts,
  async fn() {
    const dataDir = await Deno.makeTempDir({ prefix: "pl-main-" });
    try {
      const first = await start({ DATA_DIR: dataDir });
      const base = `http://127.0.0.1:${first.port}`;
      // Not a terminal: the start is one JSON record (the demo's secrets in it, this once).
      const record = startRecordOf(first.output());
      assert.match(record.database, /^embedded PGlite/);
      const { demo } = record;
      assert.match(demo.note, /These secrets are printed only once/);
      const { clientId, clientSecret } = demo;
      assert.equal(demo.adminEmail, "admin@example.com");
      assert.match(demo.adminPassword, /^\S{16}$/);
      assert.equal(demo.appName, "demo");
      assert.match(demo.apiKey, /^[A-Za-z0-9]{32}$/);
      assert.match(
        demo.mockCrm,
        /^PORTAL_API_KEY=[A-Za-z0-9]{32} PORTAL_CALLBACK_SECRET=whsec_\S+ PORTAL_URL=http:\/\/\S+\/portal deno task demo$/,
      );
      const health = await fetch(`${base}/healthz`);
      assert.equal(health.status, 200);
      assert.ok(health.headers.get("X-Request-Id"));
      await health.body?.cancel();
      const ready = await fetch(`${base}/readyz`, { headers: { "X-Request-Id": "abc-123" } });
      assert.equal(ready.headers.get("X-Request-Id"), "abc-123");
      assert.deepEqual(await ready.json(), { status: "ok", database: "reachable" });
      const tokenRequest = () =>
        fetch(`${base}/api/v1/oauth2/token`, {
          method: "POST",
          headers: { Authorization: "Basic " + btoa(`${clientId}:${clientSecret}`) },
          body: new URLSearchParams({ grant_type: "client_credentials" }),
        });
      const token = await tokenRequest();
      assert.equal(token.status, 200);
      await token.body?.cancel();
      assert.equal(await stop(first), 0);
      assert.match(await Deno.readTextFile(`${dataDir}/secret_key`), /^\S{32,}\n$/);

      const second = await start({ DATA_DIR: dataDir });
      assert.equal(startRecordOf(second.output()).demo, undefined);
      const again = await fetch(`http://127.0.0.1:${second.port}/api/v1/oauth2/token`, {
        method: "POST",
        headers: { Authorization: "Basic " + btoa(`${clientId}:${clientSecret}`) },
        body: new URLSearchParams({ grant_type: "client_credentials" }),
      });
      assert.equal(again.status, 200, "the client made on the first start still works");
      await again.body?.cancel();
      assert.equal(await stop(second), 0);
    } finally {
      await Deno.remove(dataDir, { recursive: true });
    }
  },
});

Deno.test({
  name: "deno task start: an invalid variable stops startup naming it",
  ...opts,
  async fn() {
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["run", ...FLAGS, MAIN],
      env: { HOME: Deno.env.get("HOME") ?? "/tmp", PORT: "http", TOKEN_TTL_SECONDS: "0" },
      clearEnv: true,
    }).output();
    assert.equal(out.code, 1);
    const text = new TextDecoder().decode(out.stderr);
    assert.match(text, /Invalid configuration/);
    assert.match(text, /PORT: expected a whole number/);
    assert.match(text, /TOKEN_TTL_SECONDS: expected a whole number from 60/);
  },
});

Deno.test({
  name: "deno task start: --host and --port win over HOST and PORT",
  ...opts,
  async fn() {
    const db = await prepareDatabase(backends.at(-1)!);
    const port = freePort();
    const envPort = freePort();
    try {
      const running = await start(
        { ...db.env, HOST: "127.0.0.2", PORT: String(envPort) },
        ["--host", "127.0.0.1", `--port=${port}`],
      );
      try {
        assert.equal(startRecordOf(running.output()).url, `http://127.0.0.1:${port}`);
        const health = await fetch(`http://127.0.0.1:${port}/healthz`);
        assert.equal(health.status, 200);
        await health.body?.cancel();
        await assert.rejects(Deno.connect({ hostname: "127.0.0.2", port: envPort }));
        await assert.rejects(Deno.connect({ hostname: "127.0.0.2", port }));
      } finally {
        assert.equal(await stop(running), 0);
      }
    } finally {
      await db.close();
    }
  },
});

Deno.test({
  name: "deno task start: an unknown flag stops startup naming it",
  ...opts,
  async fn() {
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["run", ...FLAGS, MAIN, "--hots", "0.0.0.0"],
      env: { HOME: Deno.env.get("HOME") ?? "/tmp" },
      clearEnv: true,
    }).output();
    assert.equal(out.code, 1);
    const text = new TextDecoder().decode(out.stderr);
    assert.match(text, /Unknown option '--hots'/);
    assert.match(text, /usage: \[--host ADDRESS\] \[--port PORT\]/);
  },
});
