import assert from "node:assert/strict";
import { connect, type Sql } from "../../db/mod.ts";
import { functionHash, migrate, readFunctions, readMigrations } from "../../db/migrate.ts";
import { backends, postgresBackend, TEST_DATABASE_URL } from "../helpers/db.ts";

const opts = { sanitizeOps: false, sanitizeResources: false };

/** Every function of the schema with its definition as PostgreSQL prints it. */
async function definitions(sql: Sql): Promise<{ name: string; def: string }[]> {
  return [
    ...await sql<{ name: string; def: string }[]>`
    select p.proname as name, pg_get_functiondef(p.oid) as def from pg_proc p
      join pg_namespace n on n.oid = p.pronamespace
    where n.nspname = current_schema() and p.prokind = 'f' order by 1`,
  ];
}

for (const backend of backends) {
  Deno.test({
    name: `migrate applies every file once; a second run is a no-op [${backend.name}]`,
    ...opts,
    async fn() {
      const db = await backend.open();
      try {
        const files = (await readMigrations()).map((m) => m.name);
        const functions = (await readFunctions()).map((f) => f.name);
        assert.ok(files.length >= 1);
        assert.ok(functions.includes("launch_apply"));
        assert.deepEqual(await migrate(db.sql), { migrations: files, functions });
        assert.deepEqual(await migrate(db.sql), { migrations: [], functions: [] });
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
            ('emit_callback_events', 'finish_callback_attempts', 'claimed_callback_events')`;
        assert.equal(plpgsql.n, 3);
      } finally {
        await db.close();
      }
    },
  });

  Deno.test({
    name: `migrate: every stored function is its db/functions file, and only those ` +
      `[${backend.name}]`,
    ...opts,
    async fn() {
      const db = await backend.open();
      try {
        await migrate(db.sql);
        const files = await readFunctions();
        const inDatabase = await db.sql<{ name: string }[]>`
          select p.proname as name from pg_proc p join pg_namespace n on n.oid = p.pronamespace
          where n.nspname = current_schema() and p.prokind = 'f' order by 1`;
        assert.deepEqual(
          inDatabase.map((r) => r.name),
          files.map((f) => f.name).sort(),
          "every function in the database has its file (none is left from an old migration)",
        );
        const recorded = await db.sql<{ name: string; sha256: string }[]>`
          select name, sha256 from schema_functions order by name`;
        assert.deepEqual(
          [...recorded],
          await Promise.all(
            files.map(async (f) => ({ name: f.name, sha256: await functionHash(f) })),
          ),
        );
        // Applying the files again changes no definition when the database's are the files'.
        const before = await definitions(db.sql);
        for (const f of files) await db.sql.unsafe(f.sql);
        assert.deepEqual(await definitions(db.sql), before);
        for (const f of files) {
          assert.match(
            f.sql,
            new RegExp(`create or replace function ${f.name}\\(`),
            `${f.name}.sql creates ${f.name} with create or replace`,
          );
        }
      } finally {
        await db.close();
      }
    },
  });

  Deno.test({
    name: `migrate applies a function file again when it changed, not otherwise ` +
      `[${backend.name}]`,
    ...opts,
    async fn() {
      const db = await backend.open();
      try {
        const files = await readFunctions();
        await migrate(db.sql);
        const changed = files.map((f) =>
          f.name === "api_time" ? { ...f, sql: f.sql.replace("'YYYY-MM-DD", "'YYYY/MM/DD") } : f
        );
        const migrations = await readMigrations();
        assert.deepEqual(await migrate(db.sql, migrations, changed), {
          migrations: [],
          functions: ["api_time"],
        });
        const [row] = await db.sql`select api_time('2026-11-24T05:00:00Z') as t`;
        assert.equal(row.t, "2026/11/24T05:00:00.000Z", "the existing database got the new body");
        assert.deepEqual(await migrate(db.sql, migrations, changed), {
          migrations: [],
          functions: [],
        });
        assert.deepEqual((await migrate(db.sql)).functions, ["api_time"], "and back");
      } finally {
        await db.close();
      }
    },
  });

  Deno.test({
    name: `a failing function file leaves nothing behind [${backend.name}]`,
    ...opts,
    async fn() {
      const db = await backend.open();
      try {
        const broken = [...await readFunctions(), { name: "zz_broken", sql: "create function (" }];
        await assert.rejects(migrate(db.sql, await readMigrations(), broken));
        const [row] = await db.sql`select to_regclass('apps') as t`;
        assert.equal(row.t, null, "the migrations of the same run were rolled back");
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
      const applied = results.flatMap((r) => r.migrations).sort();
      assert.deepEqual(applied, (await readMigrations()).map((m) => m.name).sort());
      assert.deepEqual(
        results.flatMap((r) => r.functions).sort(),
        (await readFunctions()).map((f) => f.name).sort(),
      );
      assert.equal(
        results.filter((r) => r.migrations.length > 0).length,
        1,
        "one instance did the work",
      );
    } finally {
      await Promise.all(others.map((d) => d.close()));
      await db.close();
    }
  },
});
