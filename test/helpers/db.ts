/**
 * Test databases: an embedded PGlite copied from a template made once per test process, and,
 * when TEST_DATABASE_URL is set, a fresh PostgreSQL database per open() that is dropped on close.
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

let template: Promise<string> | undefined;

async function copyTree(from: string, to: string): Promise<void> {
  await Deno.mkdir(to, { recursive: true });
  for await (const entry of Deno.readDir(from)) {
    const a = `${from}/${entry.name}`;
    const b = `${to}/${entry.name}`;
    if (entry.isDirectory) await copyTree(a, b);
    else if (entry.isFile) await Deno.copyFile(a, b);
  }
}

function pgliteTemplate(): Promise<string> {
  template ??= (async () => {
    const dir = await Deno.makeTempDir({ prefix: "pl-template-" });
    const db = await PGlite.create(`${dir}/pglite`);
    await db.close();
    globalThis.addEventListener("unload", () => {
      try {
        Deno.removeSync(dir, { recursive: true });
      } catch { /* already gone */ }
    });
    return dir;
  })();
  return template;
}

/** Embedded PGlite: each open() copies the initdb'd template (initdb takes seconds). */
export const pglite: Backend = {
  name: "pglite",
  async open(options = {}) {
    const dataDir = await Deno.makeTempDir({ prefix: "pl-test-" });
    await copyTree(await pgliteTemplate(), dataDir);
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
