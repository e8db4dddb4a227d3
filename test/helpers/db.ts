/**
 * Test databases: an embedded PGlite copied from a template made once per test run, and, when
 * TEST_DATABASE_URL is set, a fresh PostgreSQL database per open() that is dropped on close.
 */
import postgres from "postgres";
import { PGlite } from "@electric-sql/pglite";
import { connect, type ConnectOptions, type Database } from "../../db/mod.ts";

/** A database kind the integration tests run against. */
export interface Backend {
  name: "pglite" | "postgres";
  /** Opens an empty database (no migrations applied) with its own data folder. */
  open(options?: Pick<ConnectOptions, "onQuery" | "max">): Promise<TestDatabase>;
}

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
const TEMPLATE_PREFIX = "pl-pglite-template-";

/**
 * Removes the templates of test runs that have ended (Linux, where /proc tells which processes
 * live; elsewhere they stay in the temporary folder).
 */
async function removeEndedTemplates(): Promise<void> {
  try {
    await Deno.stat("/proc/self");
  } catch {
    return;
  }
  for await (const entry of Deno.readDir(TMP)) {
    const pid = entry.name.startsWith(TEMPLATE_PREFIX)
      ? entry.name.slice(TEMPLATE_PREFIX.length).split(".")[0]
      : "";
    if (!/^\d+$/.test(pid) || Number(pid) === Deno.pid) continue;
    try {
      await Deno.stat(`/proc/${pid}`);
    } catch {
      await Deno.remove(`${TMP}/${entry.name}`, { recursive: true }).catch(() => {});
    }
  }
}

let template: Promise<string> | undefined;

/**
 * The folder of an initdb'd PGlite data directory, made once per test run (initdb takes seconds
 * of CPU). `deno test --parallel` runs every file in one process, each in a worker of its own, so
 * the run's files share it through the temporary folder, keyed by the process id: the first file
 * to need it makes it under another name and renames it into place, so no file ever copies a
 * half-made one; a file that finds it made copies it. It is never opened, only copied, and the
 * next run removes it.
 */
function pgliteTemplate(): Promise<string> {
  template ??= (async () => {
    const dir = `${TMP}/${TEMPLATE_PREFIX}${Deno.pid}`;
    try {
      await Deno.stat(`${dir}/pglite`);
      return dir;
    } catch { /* not made yet */ }
    await removeEndedTemplates();
    const making = await Deno.makeTempDir({ dir: TMP, prefix: `${TEMPLATE_PREFIX}${Deno.pid}.` });
    const db = await PGlite.create(`${making}/pglite`);
    await db.close();
    try {
      await Deno.rename(making, dir);
    } catch {
      // Another file of this run made it first: use theirs.
      await Deno.remove(making, { recursive: true });
    }
    return dir;
  })();
  return template;
}

/**
 * A new DATA_DIR holding an initdb'd, empty embedded database (no migrations applied): a copy of
 * the run's template, for an in-process connection or a service process.
 */
export async function pgliteDataDir(prefix = "pl-test-"): Promise<string> {
  const dataDir = await Deno.makeTempDir({ prefix });
  await copyTree(await pgliteTemplate(), dataDir);
  return dataDir;
}

/** Embedded PGlite: each open() copies the run's initdb'd template. */
export const pglite: Backend = {
  name: "pglite",
  async open(options = {}) {
    const dataDir = await pgliteDataDir();
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
    const db = await connect({ databaseUrl: url.href, ...options });
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
