/**
 * `deno task restore <file> [--force]`: puts a `deno task backup` file back into the embedded
 * data directory of DATA_DIR. Refuses a directory that already holds a database unless --force
 * (which replaces it), and refuses while a service runs on it. The secret key is not in the
 * backup: keep DATA_DIR/secret_key (or set SECRET_KEY) as it was when the backup was taken.
 */
import { lockDataDir } from "../db/data_dir_lock.ts";

const say = (line: string) => console.log(`restore: ${line}`);

/** Restores `file` into `dataDir`; answers how many tables the restored database has. */
export async function restore(file: string, dataDir: string, force: boolean): Promise<number> {
  const lock = await lockDataDir(dataDir);
  try {
    const target = `${dataDir}/pglite`;
    let present = false;
    try {
      for await (const _ of Deno.readDir(target)) {
        present = true;
        break;
      }
    } catch { /* no directory: nothing to replace */ }
    if (present && !force) {
      throw new Error(
        `${target} already holds a database: restore into an empty DATA_DIR, or add --force to ` +
          "replace it (its current data is lost)",
      );
    }
    if (present) {
      say(`removing the database in ${target} (--force) ...`);
      await Deno.remove(target, { recursive: true });
    }
    say(`reading ${file} ...`);
    const blob = new Blob([await Deno.readFile(file)]);
    say(`restoring into ${target} ...`);
    const { PGlite } = await import("@electric-sql/pglite");
    const db = await PGlite.create(target, { loadDataDir: blob });
    try {
      const { rows } = await db.query<{ n: number }>(
        "select count(*)::int as n from pg_tables where schemaname = 'public'",
      );
      return rows[0].n;
    } finally {
      await db.close();
    }
  } finally {
    lock.release();
  }
}

if (import.meta.main) {
  const args = Deno.args.filter((a) => a !== "--force");
  if (Deno.env.get("DATABASE_URL")) {
    console.error(
      "restore: DATABASE_URL is set: restore PostgreSQL with pg_restore, e.g.\n" +
        '  pg_restore --clean --if-exists --dbname="$DATABASE_URL" portal.dump',
    );
    Deno.exit(1);
  }
  if (args.length !== 1) {
    console.error("usage: deno task restore <backup file> [--force]");
    Deno.exit(2);
  }
  const dataDir = Deno.env.get("DATA_DIR") || "./.data";
  try {
    const tables = await restore(args[0], dataDir, Deno.args.includes("--force"));
    say(
      `done: ${tables} tables in ${dataDir}/pglite. Start the service with the secret key of ` +
        "the backup's time (DATA_DIR/secret_key or SECRET_KEY).",
    );
  } catch (err) {
    console.error(`restore: ${(err as Error).message}`);
    Deno.exit(1);
  }
}
