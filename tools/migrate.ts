/**
 * `deno task migrate [--check]` (in a release: `bin/portal-launcher migrate`): applies the pending
 * migrations and changed stored functions of this release, alone, to the database the service's
 * environment names (DATABASE_URL, or the embedded database of DATA_DIR, which must not be in use).
 * With MIGRATE_ON_START=false this is the separate step of a rolling upgrade. `--check` applies
 * nothing and exits 1 when something is pending. Everything is applied in one transaction.
 */
import { connect, type Database } from "../db/mod.ts";
import { migrate } from "../db/migrate.ts";
import { DataDirLocked, lockDataDir } from "../db/data_dir_lock.ts";
import {
  describePending,
  recordRelease,
  schemaIsCurrent,
  schemaStatus,
} from "../db/schema_status.ts";
import { type Config, ConfigError, loadConfig } from "../server/config.ts";

/** Where a run of the task left the database. */
export type MigrateOutcome = "applied" | "current" | "pending" | "newer";

/** The database a config names, for messages: never its password. */
export function databaseLabel(config: Config): string {
  if (!config.databaseUrl) return `embedded PGlite in ${config.dataDir}/pglite`;
  const url = new URL(config.databaseUrl);
  return `PostgreSQL ${url.username ? `${url.username}@` : ""}${url.host}${url.pathname}`;
}

/** Runs the task on the database of `config`; `say` receives each progress line. */
export async function migrateDatabase(
  config: Config,
  options: { check?: boolean; say?: (line: string) => void } = {},
): Promise<MigrateOutcome> {
  const say = options.say ?? ((line: string) => console.log(`migrate: ${line}`));
  say(`Portal Launcher ${config.version}, ${databaseLabel(config)}`);
  const lock = config.databaseUrl ? null : await lockDataDir(config.dataDir);
  let db: Database | undefined;
  try {
    db = await connect({
      databaseUrl: config.databaseUrl,
      dataDir: config.dataDir,
      max: 1,
      onNotice: (message) => say(`  notice: ${message}`),
    });
    const status = await schemaStatus(db.sql, config.version);
    if (status.newerRelease) {
      say(`the database was migrated by release ${status.newerRelease}, newer than this one`);
      if (!schemaIsCurrent(status)) throw new Error(`it lacks ${describePending(status)}`);
      say("nothing to apply: a release never migrates a database a newer one migrated");
      return "newer";
    }
    if (status.unknownMigrations.length) {
      say(
        `the database also has migrations this release does not: ${
          status.unknownMigrations.join(", ")
        }`,
      );
    }
    const pending = status.pendingMigrations.length + status.changedFunctions.length;
    if (!pending) {
      say("the schema is current: nothing to apply");
      if (!options.check) await recordRelease(db.sql, config.version);
      return "current";
    }
    say(`pending: ${describePending(status)}`);
    if (options.check) return "pending";
    say("applying them in one transaction ...");
    const started = performance.now();
    const applied = await migrate(db.sql);
    for (const name of applied.migrations) say(`  applied migration ${name}`);
    for (const name of applied.functions) say(`  applied function ${name}`);
    await recordRelease(db.sql, config.version);
    say(
      `done in ${Math.round(performance.now() - started)} ms: ${applied.migrations.length} ` +
        `migrations, ${applied.functions.length} functions; recorded release ${config.version}`,
    );
    return "applied";
  } finally {
    await db?.close();
    lock?.release();
  }
}

/** The command line: `migrate [--check]`; answers the exit status (1: failed or pending). */
export async function main(args: string[]): Promise<number> {
  const unknown = args.filter((a) => a !== "--check");
  if (unknown.length) {
    console.error(`usage: deno task migrate [--check]   (unknown: ${unknown.join(" ")})`);
    return 2;
  }
  try {
    const config = loadConfig(Deno.env.toObject());
    const outcome = await migrateDatabase(config, { check: args.includes("--check") });
    return outcome === "pending" ? 1 : 0;
  } catch (err) {
    const known = err instanceof ConfigError || err instanceof DataDirLocked;
    const message = err instanceof Error ? err.message : String(err);
    console.error(known ? message : `migrate: failed, nothing was applied: ${message}`);
    return 1;
  }
}

if (import.meta.main) Deno.exit(await main(Deno.args));
