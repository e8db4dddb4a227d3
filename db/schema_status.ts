/**
 * Where a database's schema stands against this release's files (db/migrations/,
 * db/functions/) and the releases that migrated it (schema_releases): what the service checks at
 * start when MIGRATE_ON_START=false, what `deno task migrate` reports, and how a release finds
 * that a newer release already migrated the database (then it migrates nothing).
 */
import type { Sql } from "./mod.ts";
import {
  type FunctionFile,
  functionHash,
  type Migration,
  readFunctions,
  readMigrations,
} from "./migrate.ts";

/** The schema of a database compared with this release's migration and function files. */
export interface SchemaStatus {
  /** This release's migration files the database has not applied, in order. */
  pendingMigrations: string[];
  /** This release's function files whose body the database lacks or holds in another version. */
  changedFunctions: string[];
  /** Migrations the database has that this release does not know (a newer release's). */
  unknownMigrations: string[];
  /** The newest release recorded in schema_releases, when it is newer than this one. */
  newerRelease: string | null;
}

/** Compares two versions `MAJOR.MINOR.PATCH[-pre]`: negative, 0 or positive, as for sort(). */
export function compareVersions(a: string, b: string): number {
  const parse = (v: string) => {
    const m = /^(\d+)\.(\d+)\.(\d+)(?:-([0-9A-Za-z.-]+))?$/.exec(v.trim());
    return m ? { parts: [Number(m[1]), Number(m[2]), Number(m[3])], pre: m[4] ?? null } : null;
  };
  const x = parse(a), y = parse(b);
  if (!x || !y) throw new Error(`not a version MAJOR.MINOR.PATCH: ${x ? b : a}`);
  for (let i = 0; i < 3; i++) if (x.parts[i] !== y.parts[i]) return x.parts[i] - y.parts[i];
  if (x.pre === y.pre) return 0;
  if (x.pre === null) return 1; // 1.2.0 comes after 1.2.0-rc.1
  if (y.pre === null) return -1;
  return x.pre.localeCompare(y.pre, "en", { numeric: true });
}

async function tableExists(sql: Sql, name: string): Promise<boolean> {
  const [row] = await sql<{ found: boolean }[]>`select to_regclass(${name}) is not null as found`;
  return row.found;
}

/** Compares the database with this release's files; reads only, takes no lock. */
export async function schemaStatus(
  sql: Sql,
  version: string,
  files?: { migrations: Migration[]; functions: FunctionFile[] },
): Promise<SchemaStatus> {
  const migrations = files?.migrations ?? await readMigrations();
  const functions = files?.functions ?? await readFunctions();
  const applied = new Set(
    await tableExists(sql, "schema_migrations")
      ? (await sql<{ name: string }[]>`select name from schema_migrations`).map((r) => r.name)
      : [],
  );
  const recorded = new Map(
    await tableExists(sql, "schema_functions")
      ? (await sql<{ name: string; sha256: string }[]>`select name, sha256 from schema_functions`)
        .map((r) => [r.name, r.sha256])
      : [],
  );
  const releases = await tableExists(sql, "schema_releases")
    ? (await sql<{ version: string }[]>`select version from schema_releases`).map((r) => r.version)
    : [];
  const newest = releases.filter((v) => /^\d+\.\d+\.\d+/.test(v)).sort(compareVersions).at(-1);
  const changedFunctions: string[] = [];
  for (const file of functions) {
    if (recorded.get(file.name) !== await functionHash(file)) changedFunctions.push(file.name);
  }
  const known = new Set(migrations.map((m) => m.name));
  return {
    pendingMigrations: migrations.filter((m) => !applied.has(m.name)).map((m) => m.name),
    changedFunctions,
    unknownMigrations: [...applied].filter((name) => !known.has(name)).sort(),
    newerRelease: newest && compareVersions(newest, version) > 0 ? newest : null,
  };
}

/**
 * Whether the code of this release may run on the database: every migration it has is applied,
 * and its stored functions are the ones applied, or a newer release replaced them (the
 * compatibility rule keeps a newer release's functions usable by the release before it).
 */
export function schemaIsCurrent(status: SchemaStatus): boolean {
  return status.pendingMigrations.length === 0 &&
    (status.changedFunctions.length === 0 || status.newerRelease !== null);
}

/** Records that `version` migrated the database (after a successful migrate()). */
export async function recordRelease(sql: Sql, version: string): Promise<void> {
  await sql`
    insert into schema_releases (version) values (${version})
    on conflict (version) do update set migrated_at = now()
  `;
}

function names(list: string[]): string {
  return list.length <= 5 ? list.join(", ") : `${list.slice(0, 3).join(", ")}, … ${list.at(-1)}`;
}

/** What is missing for the code of this release, in one line (empty when nothing is). */
export function describePending(status: SchemaStatus): string {
  const parts: string[] = [];
  const n = status.pendingMigrations.length;
  if (n) {
    parts.push(
      `${n} migration${n === 1 ? "" : "s"} pending (${names(status.pendingMigrations)})`,
    );
  }
  if (status.changedFunctions.length && status.newerRelease === null) {
    parts.push(`stored functions to apply (${names(status.changedFunctions)})`);
  }
  return parts.join("; ");
}
