/**
 * Test databases: an embedded PGlite copied from a template made once per test run, and, when
 * TEST_DATABASE_URL is set, a fresh PostgreSQL database per open() that is dropped on close.
 */
import postgres from "postgres";
import { PGlite } from "@electric-sql/pglite";
import { connect, type ConnectOptions, type Database } from "../../db/mod.ts";
import { migrate, readFunctions, readMigrations } from "../../db/migrate.ts";

/** A database kind the integration tests run against. */
export interface Backend {
  name: "pglite" | "postgres";
  /**
   * Opens a database with its own data folder: empty (no migrations applied), or with `migrated`
   * every migration and function applied.
   */
  open(options?: OpenOptions): Promise<TestDatabase>;
}

/** How to open a test database. */
export type OpenOptions = Pick<ConnectOptions, "onQuery" | "max"> & { migrated?: boolean };

/** An open test database; close() also removes it. */
export interface TestDatabase extends Database {
  /** Folder for DATA_DIR (embedded: it holds the database). */
  dataDir: string;
  /** Connection URL (PostgreSQL only). */
  url?: string;
}

/** The PostgreSQL URL integration tests use, if any. */
export const TEST_DATABASE_URL = Deno.env.get("TEST_DATABASE_URL") ?? "";

async function copyTree(from: string, to: string): Promise<void> {
  await Deno.mkdir(to, { recursive: true });
  for await (const entry of Deno.readDir(from)) {
    const a = `${from}/${entry.name}`;
    const b = `${to}/${entry.name}`;
    if (entry.isDirectory) await copyTree(a, b);
    else if (entry.isFile) await Deno.copyFile(a, b);
  }
}

const TMP = Deno.env.get("TMPDIR") || "/tmp";
/**
 * A run's templates: `pl-pglite-<kind>-<pid>-<fingerprint>`, with `.<random>` after it while one
 * is being made (and, without a fingerprint, those of earlier versions of this file).
 */
const TEMPLATE_NAME = /^pl-pglite-(?:template|migrated)-(\d+)(?:-([0-9a-f]+))?(?:\.|$)/;

/**
 * What a template is made of: the PGlite package (its version in the lock) and every migration
 * and function file. A process that outlives a change of them (`deno test --watch`) makes new
 * templates rather than copying ones of an older schema.
 */
let fingerprint: Promise<string> | undefined;
function templateFingerprint(): Promise<string> {
  fingerprint ??= (async () => {
    const parts = [
      await Deno.readTextFile(new URL("../../deno.lock", import.meta.url)).then(
        (lock) => lock.match(/"npm:@electric-sql\/pglite@[^"]*"/g)?.join() ?? "",
        () => "",
      ),
      ...(await readMigrations()).map((m) => `${m.name}\n${m.sql}`),
      ...(await readFunctions()).map((f) => `${f.name}\n${f.sql}`),
    ];
    const digest = await crypto.subtle.digest(
      "SHA-256",
      new TextEncoder().encode(parts.join("\0")),
    );
    return Array.from(new Uint8Array(digest).slice(0, 6), (b) => b.toString(16).padStart(2, "0"))
      .join("");
  })();
  return fingerprint;
}

/**
 * Removes the templates of test runs that have ended (Linux, where /proc tells which processes
 * live; elsewhere they stay in the temporary folder).
 */
async function removeEndedTemplates(current: string): Promise<void> {
  try {
    await Deno.stat("/proc/self");
  } catch {
    return;
  }
  for await (const entry of Deno.readDir(TMP)) {
    const [, pid, made] = TEMPLATE_NAME.exec(entry.name) ?? [];
    if (pid === undefined) continue;
    if (Number(pid) === Deno.pid) {
      // This process's own, made before its files changed: never copied again.
      if (made !== current) {
        await Deno.remove(`${TMP}/${entry.name}`, { recursive: true }).catch(() => {});
      }
      continue;
    }
    try {
      await Deno.stat(`/proc/${pid}`);
    } catch {
      await Deno.remove(`${TMP}/${entry.name}`, { recursive: true }).catch(() => {});
    }
  }
}

/**
 * The run's template `name`: a PGlite data directory made once per test run by `make` (given an
 * empty folder). `deno test --parallel` runs every file in one process, each in a worker of its
 * own, so the run's files share it through the temporary folder, keyed by the process id and by
 * what it is made of (`templateFingerprint`): the first file to need it makes it under another
 * name and renames it into place, so no file ever copies a half-made one; a file that finds it
 * made copies it. It is never opened, only copied, and the next run removes it.
 */
async function runTemplate(name: string, make: (dir: string) => Promise<void>): Promise<string> {
  const current = await templateFingerprint();
  const dir = `${TMP}/pl-pglite-${name}-${Deno.pid}-${current}`;
  try {
    await Deno.stat(`${dir}/pglite`);
    return dir;
  } catch { /* not made yet */ }
  await removeEndedTemplates(current);
  const making = await Deno.makeTempDir({ dir: TMP, prefix: `${dir.slice(TMP.length + 1)}.` });
  try {
    await make(making);
    await Deno.rename(making, dir);
  } catch (err) {
    await Deno.remove(making, { recursive: true }).catch(() => {});
    // Another file of this run made it first: use theirs.
    try {
      await Deno.stat(`${dir}/pglite`);
    } catch {
      throw err;
    }
  }
  return dir;
}

let initdbTemplate: Promise<string> | undefined;
let migratedTemplate: Promise<string> | undefined;

/** An initdb'd data directory (initdb takes about 4 s of CPU). */
function pgliteTemplate(): Promise<string> {
  initdbTemplate ??= runTemplate("template", async (dir) => {
    const db = await PGlite.create(`${dir}/pglite`);
    await db.close();
  });
  return initdbTemplate;
}

/** The initdb'd one with every migration and function applied (about 0.7 s more per copy). */
function pgliteMigratedTemplate(): Promise<string> {
  migratedTemplate ??= runTemplate("migrated", async (dir) => {
    await copyTree(await pgliteTemplate(), dir);
    const db = await connect({ dataDir: dir });
    try {
      await migrate(db.sql);
    } finally {
      await db.close();
    }
  });
  return migratedTemplate;
}

/**
 * A new DATA_DIR holding an initdb'd embedded database, for an in-process connection or a service
 * process: empty (no migrations applied), or with `migrated`, every migration and function
 * applied and no data. A copy of one of the run's templates.
 */
export async function pgliteDataDir(
  prefix = "pl-test-",
  { migrated = false }: { migrated?: boolean } = {},
): Promise<string> {
  const dataDir = await Deno.makeTempDir({ prefix });
  await copyTree(await (migrated ? pgliteMigratedTemplate() : pgliteTemplate()), dataDir);
  return dataDir;
}

/** Embedded PGlite: each open() copies one of the run's templates. */
export const pglite: Backend = {
  name: "pglite",
  async open(options = {}) {
    const dataDir = await pgliteDataDir("pl-test-", { migrated: options.migrated });
    const db = await connect({ dataDir, onQuery: options.onQuery });
    return {
      ...db,
      dataDir,
      async close() {
        await db.close();
        await Deno.remove(dataDir, { recursive: true });
      },
    };
  },
};

/** PostgreSQL of TEST_DATABASE_URL: each open() creates a database `pl_test_<random>`. */
export const postgresBackend: Backend = {
  name: "postgres",
  async open(options = {}) {
    const admin = postgres(TEST_DATABASE_URL, { max: 1, onnotice: () => {} });
    const name = `pl_test_${crypto.randomUUID().replaceAll("-", "").slice(0, 16)}`;
    await admin.unsafe(`create database ${name}`);
    const url = new URL(TEST_DATABASE_URL);
    url.pathname = `/${name}`;
    const dataDir = await Deno.makeTempDir({ prefix: "pl-test-" });
    const { migrated, ...connectOptions } = options;
    const db = await connect({ databaseUrl: url.href, ...connectOptions });
    if (migrated) {
      await migrate(db.sql).catch(async (err) => {
        await db.close();
        await admin.unsafe(`drop database if exists ${name} with (force)`);
        await admin.end();
        await Deno.remove(dataDir, { recursive: true });
        throw err;
      });
    }
    return {
      ...db,
      dataDir,
      url: url.href,
      async close() {
        await db.close();
        await admin.unsafe(`drop database if exists ${name} with (force)`);
        await admin.end();
        await Deno.remove(dataDir, { recursive: true });
      },
    };
  },
};

/** The backends to run integration tests on: PGlite always, PostgreSQL when configured. */
export const backends: Backend[] = TEST_DATABASE_URL ? [pglite, postgresBackend] : [pglite];
