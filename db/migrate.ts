/**
 * The database's shape: forward-only migrations (numbered SQL files holding schema, applied in
 * order, once) and stored functions (one file per function in db/functions/, holding its current
 * body, applied whenever the file's content changes). Both under one advisory lock, in one
 * transaction.
 */
import type { Sql, Tx } from "./mod.ts";

/** A migration or function file: its name and SQL text. */
export interface Migration {
  name: string;
  sql: string;
}

/** A stored function's file (`db/functions/<name>.sql`): the function's name and SQL text. */
export type FunctionFile = Migration;

/** What one migrate() call applied. */
export interface Migrated {
  /** Migration files applied, in order. */
  migrations: string[];
  /** Function files applied (new, or changed since they were last applied), by name. */
  functions: string[];
}

// Arbitrary constant identifying this application's migration lock.
const LOCK_ID = 7_204_118_903;

async function readSqlFiles(dir: URL, pattern: RegExp): Promise<Migration[]> {
  const out: Migration[] = [];
  for await (const entry of Deno.readDir(dir)) {
    if (entry.isFile && pattern.test(entry.name)) {
      out.push({ name: entry.name, sql: await Deno.readTextFile(new URL(entry.name, dir)) });
    }
  }
  return out.sort((a, b) => a.name.localeCompare(b.name));
}

/** Reads `db/migrations/*.sql` sorted by name. */
export function readMigrations(
  dir = new URL("./migrations/", import.meta.url),
): Promise<Migration[]> {
  return readSqlFiles(dir, /^\d{5}_[a-z0-9_]+\.sql$/);
}

/** Reads `db/functions/*.sql` sorted by name; each is named after its function. */
export async function readFunctions(
  dir = new URL("./functions/", import.meta.url),
): Promise<FunctionFile[]> {
  const files = await readSqlFiles(dir, /^[a-z][a-z0-9_]*\.sql$/);
  return files.map((f) => ({ name: f.name.slice(0, -".sql".length), sql: f.sql }));
}

/** The SHA-256 of a function file's text, hex: what schema_functions records. */
export async function functionHash(file: FunctionFile): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(file.sql));
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

async function applyFunctions(tx: Tx, files: FunctionFile[]): Promise<string[]> {
  await tx`
    create table if not exists schema_functions (
      name text primary key,
      sha256 text not null,
      applied_at timestamptz not null default now()
    )
  `;
  const recorded = new Map(
    (await tx<{ name: string; sha256: string }[]>`select name, sha256 from schema_functions`)
      .map((r) => [r.name, r.sha256]),
  );
  const applied: string[] = [];
  for (const file of files) {
    const hash = await functionHash(file);
    if (recorded.get(file.name) === hash) continue;
    await tx.unsafe(file.sql);
    await tx`
      insert into schema_functions (name, sha256) values (${file.name}, ${hash})
      on conflict (name) do update set sha256 = excluded.sha256, applied_at = now()
    `;
    applied.push(file.name);
  }
  return applied;
}

/**
 * Applies pending migrations, then every function file whose content differs from the one last
 * applied, in one transaction holding a transaction-scoped advisory lock, so instances starting
 * together apply each file exactly once and a failure applies nothing. Given an explicit list of
 * migrations (tests of one migration), no function is applied unless `functions` is given too:
 * functions are written against the latest schema.
 */
export async function migrate(
  sql: Sql,
  migrations?: Migration[],
  functions?: FunctionFile[],
): Promise<Migrated> {
  const files = migrations ?? await readMigrations();
  const bodies = functions ?? (migrations ? [] : await readFunctions());
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
    return { migrations: applied, functions: await applyFunctions(tx, bodies) };
  });
}
