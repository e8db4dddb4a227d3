/** The schema status: what a release finds pending, and when a newer release migrated first. */
import assert from "node:assert/strict";
import { functionHash, migrate, readFunctions, readMigrations } from "../../db/migrate.ts";
import {
  compareVersions,
  describePending,
  recordRelease,
  schemaIsCurrent,
  schemaStatus,
} from "../../db/schema_status.ts";
import { backends } from "../helpers/db.ts";

const opts = { sanitizeOps: false, sanitizeResources: false };

Deno.test("schema status: versions compare as numbers, a pre-release before its release", () => {
  const sorted = ["1.10.0", "1.2.0", "0.9.9", "1.2.0-rc.10", "1.2.0-rc.2", "2.0.0"].sort(
    compareVersions,
  );
  assert.deepEqual(sorted, ["0.9.9", "1.2.0-rc.2", "1.2.0-rc.10", "1.2.0", "1.10.0", "2.0.0"]);
  assert.equal(compareVersions("1.2.3", "1.2.3"), 0);
  assert.throws(() => compareVersions("1.2", "1.2.0"), /not a version/);
});

for (const backend of backends) {
  Deno.test({
    name: `schema status: an empty database has everything pending [${backend.name}]`,
    ...opts,
    async fn() {
      const db = await backend.open();
      try {
        const status = await schemaStatus(db.sql, "1.0.0");
        assert.deepEqual(status.pendingMigrations, (await readMigrations()).map((m) => m.name));
        assert.deepEqual(status.changedFunctions, (await readFunctions()).map((f) => f.name));
        assert.equal(status.newerRelease, null);
        assert.equal(schemaIsCurrent(status), false);
        assert.match(describePending(status), /^\d+ migrations pending \(00001_initial\.sql, /);
      } finally {
        await db.close();
      }
    },
  });

  Deno.test({
    name:
      `schema status: after migrate nothing is pending; a changed function is [${backend.name}]`,
    ...opts,
    async fn() {
      const db = await backend.open();
      try {
        await migrate(db.sql);
        const current = await schemaStatus(db.sql, "1.0.0");
        assert.deepEqual(current.pendingMigrations, []);
        assert.deepEqual(current.changedFunctions, []);
        assert.ok(schemaIsCurrent(current));
        const functions = await readFunctions();
        const edited = functions.map((f) =>
          f.name === "api_time" ? { ...f, sql: `${f.sql}\n-- edited` } : f
        );
        const migrations = await readMigrations();
        const next = await schemaStatus(db.sql, "1.0.0", { migrations, functions: edited });
        assert.deepEqual(next.changedFunctions, ["api_time"]);
        assert.equal(schemaIsCurrent(next), false);
        assert.equal(describePending(next), "stored functions to apply (api_time)");
        const apiTime = (list: typeof functions) => list.find((f) => f.name === "api_time")!;
        assert.notEqual(
          await functionHash(apiTime(edited)),
          await functionHash(apiTime(functions)),
        );
      } finally {
        await db.close();
      }
    },
  });

  Deno.test({
    name: `schema status: a newer release's migrations and functions keep an older release ` +
      `current [${backend.name}]`,
    ...opts,
    async fn() {
      const db = await backend.open();
      try {
        await migrate(db.sql);
        await recordRelease(db.sql, "1.0.0");
        // What release 1.1.0 would leave: one more migration, another body of api_time.
        await db.sql`insert into schema_migrations (name) values ('99999_from_the_future.sql')`;
        await db.sql`update schema_functions set sha256 = 'newer' where name = 'api_time'`;
        const older = await schemaStatus(db.sql, "1.0.0");
        assert.equal(older.newerRelease, null, "nothing recorded says a newer release ran");
        assert.equal(schemaIsCurrent(older), false);
        await recordRelease(db.sql, "1.1.0");
        const status = await schemaStatus(db.sql, "1.0.0");
        assert.equal(status.newerRelease, "1.1.0");
        assert.deepEqual(status.unknownMigrations, ["99999_from_the_future.sql"]);
        assert.deepEqual(status.changedFunctions, ["api_time"]);
        assert.ok(schemaIsCurrent(status));
        assert.equal((await schemaStatus(db.sql, "1.1.0")).newerRelease, null);
        await db.sql`delete from schema_migrations where name = '00019_organizations.sql'`;
        const lacking = await schemaStatus(db.sql, "1.0.0");
        assert.equal(schemaIsCurrent(lacking), false, "its own migrations must still be there");
      } finally {
        await db.close();
      }
    },
  });
}
