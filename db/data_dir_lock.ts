/**
 * One process per embedded data directory. Two processes opening the same PGlite files would each
 * keep their own copy in memory and overwrite each other's writes, so the service takes an
 * exclusive OS file lock on `DATA_DIR/.lock` before opening the database. The OS releases it when
 * the process ends, however it ends (kill -9 included): there is no stale lock to clean up. The
 * file also says who holds it (PID, port, start time), for the refusal message.
 */

/** Who holds a data directory. */
export interface LockHolder {
  pid: number;
  port: number | null;
  startedAt: string;
}

/** Thrown when another process holds the directory. */
export class DataDirLocked extends Error {
  constructor(readonly dataDir: string, readonly holder: LockHolder | null) {
    const who = holder
      ? `process ${holder.pid}${holder.port ? ` (port ${holder.port})` : ""}, started ` +
        holder.startedAt
      : "another process";
    super(
      `DATA_DIR ${dataDir} is in use by ${who}: one embedded database serves one process. ` +
        "Stop that process first, or give this one its own DATA_DIR, or set DATABASE_URL to share " +
        "a PostgreSQL database between processes.",
    );
    this.name = "DataDirLocked";
  }
}

/** A held lock. */
export interface DataDirLock {
  /** Records the port this process listens on (shown to a second process). */
  setPort(port: number): Promise<void>;
  release(): void;
}

const encoder = new TextEncoder();

/** Takes the lock of `dataDir` (created when missing), or throws DataDirLocked at once. */
export async function lockDataDir(dataDir: string, waitMs = 250): Promise<DataDirLock> {
  await Deno.mkdir(dataDir, { recursive: true });
  const path = `${dataDir}/.lock`;
  const file = await Deno.open(path, { read: true, write: true, create: true });
  // A holder that is just ending (a restart) lets go within moments: retry for waitMs.
  const deadline = Date.now() + waitMs;
  while (!(await file.tryLock(true))) {
    if (Date.now() >= deadline) {
      file.close();
      let holder: LockHolder | null = null;
      try {
        holder = JSON.parse(await Deno.readTextFile(path));
      } catch { /* written a moment later, or by an older version */ }
      throw new DataDirLocked(dataDir, holder);
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  const info: LockHolder = { pid: Deno.pid, port: null, startedAt: new Date().toISOString() };
  const write = async () => {
    await file.truncate(0);
    await file.seek(0, Deno.SeekMode.Start);
    await file.write(encoder.encode(JSON.stringify(info)));
  };
  await write();
  return {
    async setPort(port) {
      info.port = port;
      await write();
    },
    release() {
      try {
        file.close();
      } catch { /* already closed */ }
    },
  };
}
