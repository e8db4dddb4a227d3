/**
 * One process per embedded data directory: a second start on a directory in use exits at once
 * naming it, the other process and its port; after the first is killed with SIGKILL, a new start
 * succeeds and has every launch the first one acknowledged.
 */
import assert from "node:assert/strict";
import { DataDirLocked, lockDataDir } from "../../db/data_dir_lock.ts";
import { startProcess, startRecordOf } from "../helpers/process.ts";
import { signLaunch } from "../helpers/launch.ts";
import { launchPayload } from "../helpers/payload.ts";

const opts = { sanitizeOps: false, sanitizeResources: false };

Deno.test(
  "data dir lock: a second holder is refused at once, with who holds it",
  opts,
  async () => {
    const dir = await Deno.makeTempDir({ prefix: "pl-lock-" });
    try {
      const first = await lockDataDir(dir);
      await first.setPort(8123);
      const started = performance.now();
      await assert.rejects(lockDataDir(dir), (err: Error) => {
        assert.ok(err instanceof DataDirLocked);
        assert.match(err.message, new RegExp(`DATA_DIR ${dir} is in use by process ${Deno.pid}`));
        assert.match(err.message, /\(port 8123\)/);
        assert.match(err.message, /DATABASE_URL/);
        return true;
      });
      assert.ok(performance.now() - started < 2_000, "refused at once");
      first.release();
      const again = await lockDataDir(dir);
      again.release();
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
);

Deno.test(
  "data dir lock: two starts on one directory, kill -9, restart with every launch",
  opts,
  async () => {
    const dataDir = await Deno.makeTempDir({ prefix: "pl-lock-" });
    try {
      const first = await startProcess({ DATA_DIR: dataDir });
      const base = `http://127.0.0.1:${first.port}`;
      const { apiKey, clientId, clientSecret } = startRecordOf(first.output()).demo;
      const launches = 25;
      for (let i = 0; i < launches; i++) {
        const res = await fetch(`${base}/portal/api/auth/app/demo`, {
          method: "POST",
          headers: { Accept: "application/json" },
          body: new URLSearchParams({
            signed_request: await signLaunch(
              launchPayload({ contactId: `LOCK${i}`, contactEmail: `lock${i}@example.org` }),
              apiKey,
            ),
          }),
        });
        assert.equal(res.status, 200, await res.text());
      }
      const refused = await startProcess({ DATA_DIR: dataDir }).then(
        () => assert.fail("a second process started on the same DATA_DIR"),
        (err: Error) => err.message,
      );
      assert.match(refused, /exited with 1/);
      assert.match(
        refused,
        new RegExp(`DATA_DIR ${dataDir} is in use by process ${first.process.pid}`),
      );
      assert.match(refused, new RegExp(`\\(port ${first.port}\\)`));
      first.process.kill("SIGKILL");
      await first.process.status;
      const third = await startProcess({ DATA_DIR: dataDir });
      try {
        const token = await (await fetch(`http://127.0.0.1:${third.port}/api/v1/oauth2/token`, {
          method: "POST",
          headers: { Authorization: "Basic " + btoa(`${clientId}:${clientSecret}`) },
          body: new URLSearchParams({ grant_type: "client_credentials" }),
        })).json();
        const sessions = await (await fetch(
          `http://127.0.0.1:${third.port}/api/v1/sessions?limit=200`,
          { headers: { Authorization: `Bearer ${token.access_token}` } },
        )).json();
        assert.equal(sessions.items.length, launches, "every acknowledged launch survived kill -9");
      } finally {
        third.process.kill("SIGTERM");
        await third.process.status;
      }
    } finally {
      await Deno.remove(dataDir, { recursive: true });
    }
  },
);
