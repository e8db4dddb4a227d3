/** Forward-only migrations: numbered SQL files applied in order, once, under an advisory lock. */
import type { Sql } from "./mod.ts";

/** A migration file: its number-prefixed name and SQL text. */
export interface Migration {
  name: string;
  sql: string;
}

// Arbitrary constant identifying this application's migration lock.
const LOCK_ID = 7_204_118_903;

/** Reads `db/migrations/*.sql` sorted by name. */
export async function readMigrations(
  dir = new URL("./migrations/", import.meta.url),
): Promise<Migration[]> {
  const out: Migration[] = [];
  for await (const entry of Deno.readDir(dir)) {
    if (entry.isFile && /^\d{5}_[a-z0-9_]+\.sql$/.test(entry.name)) {
      out.push({ name: entry.name, sql: await Deno.readTextFile(new URL(entry.name, dir)) });
    }
  }
  return out.sort((a, b) => a.name.localeCompare(b.name));
}

/**
 * Applies pending migrations in one transaction holding a transaction-scoped advisory lock, so
 * instances starting together apply each file exactly once. Returns the names it applied.
 */
export async function migrate(sql: Sql, migrations?: Migration[]): Promise<string[]> {
  const files = migrations ?? await readMigrations();
  return await sql.begin(async (tx) => {
    await tx`select pg_advisory_xact_lock(${LOCK_ID})`;
    await tx`
      create table if not exists schema_migrations (
        name text primary key,
        applied_at timestamptz not null default now()
      )
    `;
    const done = new Set((await tx`select name from schema_migrations`).map((r) => r.name));
    const applied: string[] = [];
    for (const file of files) {
      if (done.has(file.name)) continue;
      await tx.unsafe(file.sql);
      await tx`insert into schema_migrations (name) values (${file.name})`;
      applied.push(file.name);
    }
    return applied;
  });
}
