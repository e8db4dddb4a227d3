import assert from "node:assert/strict";
import { connect } from "../../db/mod.ts";
import { migrate, readMigrations } from "../../db/migrate.ts";
import { backends, postgresBackend, TEST_DATABASE_URL } from "../helpers/db.ts";

const opts = { sanitizeOps: false, sanitizeResources: false };

for (const backend of backends) {
  Deno.test({
    name: `migrate applies every file once; a second run is a no-op [${backend.name}]`,
    ...opts,
    async fn() {
      const db = await backend.open();
      try {
        const files = (await readMigrations()).map((m) => m.name);
        assert.ok(files.length >= 1);
        assert.deepEqual(await migrate(db.sql), files);
        assert.deepEqual(await migrate(db.sql), []);
        const rows = await db.sql`select name from schema_migrations order by name`;
        assert.deepEqual(rows.map((r) => r.name), files);
        const [settings] = await db.sql`select count(*) from field_settings`;
        assert.equal(settings.count, 1, "seed rows are not inserted twice");
      } finally {
        await db.close();
      }
    },
  });

  Deno.test({
    name: `functions that read or write tables are PL/pgSQL, planned once per connection ` +
      `[${backend.name}]`,
    ...opts,
    async fn() {
      const db = await backend.open();
      try {
        await migrate(db.sql);
        // PostgreSQL before 18 plans a SQL-language function that it cannot inline at every
        // call (migration 00017); only immutable one-expression helpers may stay SQL.
        const rows = await db.sql`
          select p.proname as name, p.provolatile as volatility, p.proconfig as config
          from pg_proc p
            join pg_namespace n on n.oid = p.pronamespace
            join pg_language l on l.oid = p.prolang
          where n.nspname = current_schema() and l.lanname = 'sql'
          order by 1`;
        assert.deepEqual(
          rows.filter((r) => r.volatility !== "i" || r.config !== null).map((r) => r.name),
          [],
        );
        assert.ok(rows.some((r) => r.name === "api_time"), "the immutable helper is still SQL");
        const [plpgsql] = await db.sql`
          select count(*)::int as n from pg_proc p join pg_language l on l.oid = p.prolang
          where l.lanname = 'plpgsql' and p.proname in
            ('emit_session_events', 'finish_callback_attempts', 'claimed_callback_events')`;
        assert.equal(plpgsql.n, 3);
      } finally {
        await db.close();
      }
    },
  });

  Deno.test({
    name: `a failing migration leaves nothing behind [${backend.name}]`,
    ...opts,
    async fn() {
      const db = await backend.open();
      try {
        const files = await readMigrations();
        await assert.rejects(
          migrate(db.sql, [...files, { name: "99999_broken.sql", sql: "create table x (; " }]),
        );
        const [row] = await db.sql`select to_regclass('apps') as t`;
        assert.equal(row.t, null, "earlier files of the same run were rolled back");
      } finally {
        await db.close();
      }
    },
  });
}

Deno.test({
  name: "two instances migrating at once apply each file exactly once [postgres]",
  ignore: !TEST_DATABASE_URL,
  ...opts,
  async fn() {
    const db = await postgresBackend.open();
    const others = await Promise.all(
      [1, 2, 3].map(() => connect({ databaseUrl: db.url, max: 2 })),
    );
    try {
      const results = await Promise.all([db, ...others].map((d) => migrate(d.sql)));
      const applied = results.flat().sort();
      assert.deepEqual(applied, (await readMigrations()).map((m) => m.name).sort());
      assert.equal(results.filter((r) => r.length > 0).length, 1, "one instance did the work");
    } finally {
      await Promise.all(others.map((d) => d.close()));
      await db.close();
    }
  },
});
