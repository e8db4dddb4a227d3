/**
 * `deno task backup [file]`: a consistent backup of the embedded database of DATA_DIR, a gzipped
 * tar of its data directory (PGlite's dumpDataDir), whether the service runs or not. Stopped: the
 * task opens the directory itself (holding its lock). Running: it asks the running process over
 * its port (POST /internal/backup, proving it can read the secret key). On PostgreSQL it prints
 * the pg_dump command instead. `deno task restore <file>` puts a backup back.
 */
import { DataDirLocked, lockDataDir } from "../db/data_dir_lock.ts";
import { backupProof } from "../server/ops/backup_route.ts";

const say = (line: string) => console.log(`backup: ${line}`);

function mb(bytes: number): string {
  return `${(bytes / 1_048_576).toFixed(1)} MB`;
}

/** Writes the backup of `dataDir` to `file`; answers how it was taken and its size. */
export async function backup(
  dataDir: string,
  file: string,
  secretKey?: string,
): Promise<{ from: "files" | "running service"; bytes: number }> {
  let lock;
  try {
    lock = await lockDataDir(dataDir);
  } catch (err) {
    if (!(err instanceof DataDirLocked) || !err.holder?.port) throw err;
    const key = secretKey || (await Deno.readTextFile(`${dataDir}/secret_key`)).trim();
    say(`the service runs (process ${err.holder.pid}, port ${err.holder.port}): asking it ...`);
    const res = await fetch(`http://127.0.0.1:${err.holder.port}/internal/backup`, {
      method: "POST",
      headers: {
        Authorization: `DataDir ${await backupProof(key, Math.floor(Date.now() / 1000))}`,
      },
    });
    if (!res.ok || !res.body) {
      throw new Error(`the running service answered ${res.status}: ${await res.text()}`);
    }
    await Deno.writeFile(file, res.body);
    return { from: "running service", bytes: (await Deno.stat(file)).size };
  }
  try {
    say(`opening ${dataDir}/pglite ...`);
    const { PGlite } = await import("@electric-sql/pglite");
    const db = await PGlite.create(`${dataDir}/pglite`);
    try {
      say("dumping the data directory ...");
      const blob = await db.dumpDataDir("gzip");
      await Deno.writeFile(file, blob.stream());
      return { from: "files", bytes: blob.size };
    } finally {
      await db.close();
    }
  } finally {
    lock.release();
  }
}

if (import.meta.main) {
  const databaseUrl = Deno.env.get("DATABASE_URL");
  if (databaseUrl) {
    console.error(
      "backup: DATABASE_URL is set, so the data is in PostgreSQL: back it up with PostgreSQL's " +
        "own tools:\n" +
        `  pg_dump --format=custom --file=portal.dump '${databaseUrl}'\n` +
        `  pg_restore --clean --if-exists --dbname='${databaseUrl}' portal.dump   (to restore)`,
    );
    Deno.exit(1);
  }
  const dataDir = Deno.env.get("DATA_DIR") || "./.data";
  const file = Deno.args[0] ??
    `portal-backup-${new Date().toISOString().slice(0, 19).replaceAll(":", "")}.tar.gz`;
  try {
    await Deno.stat(`${dataDir}/pglite`);
  } catch {
    console.error(`backup: no embedded database in ${dataDir}/pglite (set DATA_DIR)`);
    Deno.exit(1);
  }
  try {
    const started = performance.now();
    const done = await backup(dataDir, file, Deno.env.get("SECRET_KEY"));
    say(
      `wrote ${file} (${mb(done.bytes)}, from the ${done.from}) in ` +
        `${((performance.now() - started) / 1000).toFixed(1)} s. Keep ${dataDir}/secret_key (or ` +
        "SECRET_KEY) with it, in a safe place: the backup holds the API keys sealed with it.",
    );
  } catch (err) {
    console.error(`backup: ${(err as Error).message}`);
    Deno.exit(1);
  }
}
