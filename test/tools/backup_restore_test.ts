/**
 * `deno task backup` and `deno task restore` on the embedded database: a backup taken from the
 * files (service stopped) and one taken from a running service both restore into a fresh data
 * directory with every launch; a non-empty directory is refused without --force; on PostgreSQL
 * the task points to pg_dump.
 */
import assert from "node:assert/strict";
import { loadConfig } from "../../server/config.ts";
import { startService } from "../../server/service.ts";
import { startProcess, startRecordOf } from "../helpers/process.ts";
import { signLaunch } from "../helpers/launch.ts";
import { launchPayload } from "../helpers/payload.ts";
import { uniqueId } from "../helpers/shared.ts";

const opts = { sanitizeOps: false, sanitizeResources: false };
const BACKUP = new URL("../../tools/backup.ts", import.meta.url).pathname;
const RESTORE = new URL("../../tools/restore.ts", import.meta.url).pathname;

async function task(script: string, args: string[], env: Record<string, string>) {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", script, ...args],
    // Only what the test gives: a DATABASE_URL of the caller (CI sets one) must not leak in.
    env: { HOME: Deno.env.get("HOME") ?? "/tmp", PATH: Deno.env.get("PATH") ?? "", ...env },
    clearEnv: true,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
  return { code: out.code, text };
}

/** Sessions in the embedded database of `dataDir` (opened, counted, closed). */
async function sessionsIn(dataDir: string): Promise<number> {
  const svc = await startService(
    loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: "silent" }),
    { demoData: false, deliveryWorker: false },
  );
  try {
    const [{ n }] = await svc.db.sql`select count(*)::int as n from sessions`;
    return n;
  } finally {
    await svc.close();
  }
}

Deno.test("backup and restore: from a running service and from a stopped one", opts, async () => {
  const dir = await Deno.makeTempDir({ prefix: "pl-backup-" });
  try {
    const source = `${dir}/source`;
    const first = await startProcess({ DATA_DIR: source });
    const { apiKey } = startRecordOf(first.output()).demo;
    for (let i = 0; i < 7; i++) {
      const res = await fetch(`http://127.0.0.1:${first.port}/portal/api/auth/app/demo`, {
        method: "POST",
        headers: { Accept: "application/json" },
        body: new URLSearchParams({
          signed_request: await signLaunch(launchPayload({ contactId: uniqueId("C") }), apiKey),
        }),
      });
      assert.equal(res.status, 200);
      await res.body?.cancel();
    }
    // While it runs: the backup comes from the running service.
    const online = await task(BACKUP, [`${dir}/online.tar.gz`], { DATA_DIR: source });
    assert.equal(online.code, 0, online.text);
    assert.match(online.text, new RegExp(`the service runs \\(process ${first.process.pid}`));
    assert.match(online.text, /from the running service/);
    first.process.kill("SIGTERM");
    await first.process.status;
    // Stopped: the backup comes from the files.
    const offline = await task(BACKUP, [`${dir}/offline.tar.gz`], { DATA_DIR: source });
    assert.equal(offline.code, 0, offline.text);
    assert.match(offline.text, /opening .*pglite \.\.\.\n.*dumping the data directory/);
    assert.match(offline.text, /from the files/);
    assert.match(offline.text, /Keep .*secret_key/);
    for (const name of ["online", "offline"]) {
      const target = `${dir}/restored-${name}`;
      const restored = await task(RESTORE, [`${dir}/${name}.tar.gz`], { DATA_DIR: target });
      assert.equal(restored.code, 0, restored.text);
      assert.match(restored.text, /done: \d+ tables/);
      assert.equal(await sessionsIn(target), 7, `${name}: every launch`);
    }
    const refused = await task(RESTORE, [`${dir}/offline.tar.gz`], {
      DATA_DIR: `${dir}/restored-online`,
    });
    assert.equal(refused.code, 1);
    assert.match(refused.text, /already holds a database: .* add --force/);
    const forced = await task(RESTORE, [`${dir}/offline.tar.gz`, "--force"], {
      DATA_DIR: `${dir}/restored-online`,
    });
    assert.equal(forced.code, 0, forced.text);
    assert.equal(await sessionsIn(`${dir}/restored-online`), 7);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("backup: with DATABASE_URL the task prints pg_dump and pg_restore", opts, async () => {
  const out = await task(BACKUP, [], { DATABASE_URL: "postgres://u@db.example:5432/portal" });
  assert.equal(out.code, 1);
  assert.match(out.text, /pg_dump --format=custom --file=portal\.dump 'postgres:\/\/u@db\.example/);
  assert.match(out.text, /pg_restore/);
});
