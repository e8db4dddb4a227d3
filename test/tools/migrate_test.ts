/**
 * `deno task migrate` and MIGRATE_ON_START: migrations as a separate step, a start that refuses a
 * schema behind it, and a release that leaves alone a database a newer release migrated.
 */
import assert from "node:assert/strict";
import { connect, type Database } from "../../db/mod.ts";
import { lockDataDir } from "../../db/data_dir_lock.ts";
import { recordRelease } from "../../db/schema_status.ts";
import { type Config, loadConfig, VERSION } from "../../server/config.ts";
import { SchemaNotCurrent, startService } from "../../server/service.ts";
import { databaseLabel, migrateDatabase } from "../../tools/migrate.ts";
import { backends, pgliteDataDir, postgresBackend } from "../helpers/db.ts";

const opts = { sanitizeOps: false, sanitizeResources: false };
const TOOL = new URL("../../tools/migrate.ts", import.meta.url).pathname;
const SECRET_KEY = "test-secret-key-0123456789abcdefghijklmnop";

/** A place for an empty database: a fresh DATA_DIR, or a fresh PostgreSQL database. */
async function emptyDatabase(
  backend: "pglite" | "postgres",
): Promise<{ env: Record<string, string>; cleanup: () => Promise<void> }> {
  const dataDir = backend === "pglite"
    ? await pgliteDataDir("pl-migrate-")
    : await Deno.makeTempDir({ prefix: "pl-migrate-" });
  const env = { DATA_DIR: dataDir, SECRET_KEY, LOG_LEVEL: "silent" };
  if (backend === "pglite") {
    return { env, cleanup: () => Deno.remove(dataDir, { recursive: true }) };
  }
  const db = await postgresBackend.open(); // dropped by close()
  return {
    env: { ...env, DATABASE_URL: db.url! },
    cleanup: async () => {
      await db.close();
      await Deno.remove(dataDir, { recursive: true });
    },
  };
}

/** Starts and stops the service; answers what it applied, or the error it refused with. */
async function startOnce(config: Config, db?: Database) {
  try {
    const service = await startService(config, { db, demoData: false, deliveryWorker: false });
    const health = await (await service.app.request("http://portal.test/healthz")).json();
    await service.close();
    return { migrated: service.migrated, health };
  } catch (err) {
    if (err instanceof SchemaNotCurrent) return { refused: err.message };
    throw err;
  }
}

Deno.test("migrate: the database label never shows the password", () => {
  const config = loadConfig({
    DATABASE_URL: "postgres://portal:s3cret@db.internal:5433/portal",
    SECRET_KEY,
  });
  assert.equal(databaseLabel(config), "PostgreSQL portal@db.internal:5433/portal");
  assert.equal(
    databaseLabel(loadConfig({ DATA_DIR: "/var/lib/pl" })),
    "embedded PGlite in /var/lib/pl/pglite",
  );
});

Deno.test("migrate: MIGRATE_ON_START defaults to true and reads false", () => {
  assert.equal(loadConfig({}).migrateOnStart, true);
  assert.equal(loadConfig({ MIGRATE_ON_START: "false" }).migrateOnStart, false);
  assert.throws(() => loadConfig({ MIGRATE_ON_START: "later" }), /MIGRATE_ON_START: expected/);
});

for (const { name } of backends) {
  Deno.test({
    name: `migrate: with MIGRATE_ON_START=false the service refuses a schema behind it and ` +
      `starts once the task applied it [${name}]`,
    ...opts,
    async fn() {
      const { env, cleanup } = await emptyDatabase(name);
      try {
        const config = loadConfig({ ...env, MIGRATE_ON_START: "false" });
        const refused = await startOnce(config);
        assert.match(refused.refused ?? "", /migrations pending \(00001_initial\.sql, /);
        assert.match(refused.refused ?? "", /MIGRATE_ON_START is false: run `deno task migrate`/);
        const lines: string[] = [];
        const say = (line: string) => lines.push(line);
        assert.equal(await migrateDatabase(config, { check: true, say }), "pending");
        assert.match((await startOnce(config)).refused ?? "", /migrations pending/);
        assert.equal(await migrateDatabase(config, { say }), "applied");
        const text = lines.join("\n");
        assert.match(text, /applying them in one transaction/);
        assert.match(text, /applied migration 00001_initial\.sql/);
        assert.match(text, /applied function launch_apply/);
        assert.match(text, new RegExp(`recorded release ${VERSION.replaceAll(".", "\\.")}$`));
        const started = await startOnce(config);
        assert.deepEqual(started.migrated, { migrations: [], functions: [] });
        assert.deepEqual(started.health, { status: "ok", version: VERSION });
        assert.equal(await migrateDatabase(config, { say }), "current");
        const db = await connect({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
        await recordRelease(db.sql, "99.0.0");
        await db.close();
        assert.equal(await migrateDatabase(config, { say }), "newer");
        assert.match(
          lines.at(-1)!,
          /nothing to apply: a release never migrates a database a newer/,
        );
      } finally {
        await cleanup();
      }
    },
  });
}

for (const backend of backends) {
  Deno.test({
    name: `migrate: a release leaves alone a database a newer release migrated [${backend.name}]`,
    ...opts,
    async fn() {
      const db = await backend.open();
      // The services below share this database and must not close it.
      const shared: Database = { ...db, close: async () => {} };
      try {
        const env = { DATA_DIR: db.dataDir, SECRET_KEY, LOG_LEVEL: "silent" };
        const config = loadConfig({ ...env, ...(db.url ? { DATABASE_URL: db.url } : {}) });
        assert.ok((await startOnce(config, shared)).migrated?.migrations.length);
        // What a newer release leaves: its version recorded, its body of api_time.
        await recordRelease(db.sql, "99.0.0");
        await db.sql`update schema_functions set sha256 = 'newer' where name = 'api_time'`;
        const hash = async () =>
          (await db.sql`select sha256 from schema_functions where name = 'api_time'`)[0].sha256;
        assert.deepEqual((await startOnce(config, shared)).migrated, {
          migrations: [],
          functions: [],
        });
        assert.equal(await hash(), "newer", "the newer release's function is kept");
        const strict = { ...config, migrateOnStart: false };
        assert.ok((await startOnce(strict, shared)).health, "an older release still starts");
        // Without a newer release on record, the same difference is this release's to apply.
        await db.sql`delete from schema_releases where version = '99.0.0'`;
        assert.match((await startOnce(strict, shared)).refused ?? "", /functions to apply/);
        assert.deepEqual((await startOnce(config, shared)).migrated?.functions, ["api_time"]);
        assert.notEqual(await hash(), "newer");
      } finally {
        await db.close();
      }
    },
  });
}

Deno.test({
  name: "migrate: the task refuses an embedded database in use, and --check exits 1 on pending",
  ...opts,
  async fn() {
    const dataDir = await Deno.makeTempDir({ prefix: "pl-migrate-" });
    try {
      const lock = await lockDataDir(dataDir);
      const run = () =>
        new Deno.Command(Deno.execPath(), {
          args: ["run", "-A", TOOL, "--check"],
          env: { HOME: Deno.env.get("HOME") ?? "/tmp", DATA_DIR: dataDir },
          clearEnv: true,
        }).output();
      const busy = await run();
      lock.release();
      assert.equal(busy.code, 1);
      assert.match(new TextDecoder().decode(busy.stderr), /DATA_DIR .* is in use by process/);
      const check = await run();
      const out = new TextDecoder().decode(check.stdout);
      assert.equal(check.code, 1, out);
      assert.match(out, /migrate: pending: \d+ migrations pending/);
      assert.doesNotMatch(out, /applied/);
    } finally {
      await Deno.remove(dataDir, { recursive: true });
    }
  },
});
