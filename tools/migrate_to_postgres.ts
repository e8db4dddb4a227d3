/**
 * `deno task migrate-to-postgres <postgres-url>`: moves the embedded database of DATA_DIR into an
 * empty PostgreSQL database. The schema comes from the migrations; the data is copied table by
 * table in foreign-key order (each table in pages of 5,000 rows, through PostgreSQL's own JSON
 * conversion so every type survives), identity sequences are advanced, row counts are compared,
 * and the environment to start with is printed (DATABASE_URL and the SECRET_KEY of
 * DATA_DIR/secret_key: without it the stored API keys and secrets cannot be read).
 *
 * The service must be stopped (the data directory's lock says so). Nothing is written to the
 * embedded database (beyond applying its pending migrations); when the copy fails, the tables it
 * created in the (empty) target are dropped again.
 */
import postgres from "postgres";
import { connect } from "../db/mod.ts";
import { migrate } from "../db/migrate.ts";
import { DataDirLocked, lockDataDir } from "../db/data_dir_lock.ts";

const PAGE = 5_000;

/** Tables of the public schema in an order where each comes after the tables it references. */
async function tablesInOrder(sql: postgres.Sql): Promise<string[]> {
  const tables = (await sql<{ name: string }[]>`
    select tablename as name from pg_tables where schemaname = 'public' order by tablename
  `).map((r) => r.name);
  const edges = await sql<{ child: string; parent: string }[]>`
    select c.relname as child, p.relname as parent
    from pg_constraint k
      join pg_class c on c.oid = k.conrelid
      join pg_class p on p.oid = k.confrelid
      join pg_namespace n on n.oid = c.relnamespace
    where k.contype = 'f' and n.nspname = 'public' and c.relname <> p.relname
  `;
  const ordered: string[] = [];
  const left = new Set(tables);
  while (left.size) {
    const ready = [...left].filter((t) => !edges.some((e) => e.child === t && left.has(e.parent)));
    if (!ready.length) throw new Error(`foreign keys form a cycle among: ${[...left].join(", ")}`);
    for (const t of ready) {
      ordered.push(t);
      left.delete(t);
    }
  }
  return ordered;
}

/** Options of one move. */
export interface MoveOptions {
  dataDir: string;
  targetUrl: string;
  /** Progress lines (default: console.log). */
  say?: (line: string) => void;
}

/** What a move copied: rows per table. */
export type MoveReport = Record<string, number>;

/** Copies the embedded database of `dataDir` into the empty database at `targetUrl`. */
export async function moveToPostgres(o: MoveOptions): Promise<MoveReport> {
  const say = o.say ?? console.log;
  const lock = await lockDataDir(o.dataDir);
  const target = postgres(o.targetUrl, { max: 1, onnotice: () => {} });
  const source = await connect({ dataDir: o.dataDir });
  try {
    const [{ n }] = await target<{ n: number }[]>`
      select count(*)::int as n from pg_tables where schemaname = 'public'`;
    if (n > 0) {
      throw new Error(
        `the target database is not empty (${n} tables in its public schema): create an empty ` +
          "one, e.g. createdb portal",
      );
    }
    say("migrate-to-postgres: bringing the embedded database up to date ...");
    await migrate(source.sql);
    const tables = (await tablesInOrder(source.sql)).filter((t) => t !== "schema_migrations");
    const report: MoveReport = {};
    say("migrate-to-postgres: creating the schema on PostgreSQL ...");
    await migrate(target as unknown as Parameters<typeof migrate>[0]);
    try {
      await copyAll(source.sql, target, tables, report, say);
    } catch (err) {
      // The target was empty: leave it so, ready for another try.
      const created = await target<{ name: string }[]>`
        select tablename as name from pg_tables where schemaname = 'public'`;
      for (const { name } of created) await target.unsafe(`drop table if exists "${name}" cascade`);
      throw err;
    }
    return report;
  } finally {
    await source.close();
    await target.end({ timeout: 5 });
    lock.release();
  }
}

/** Copies every table's rows in one transaction, then advances sequences and checks counts. */
async function copyAll(
  source: postgres.Sql,
  target: postgres.Sql,
  tables: string[],
  report: MoveReport,
  say: (line: string) => void,
): Promise<void> {
  await target.begin(async (tx) => {
    // The migrations seed a few rows (e.g. the field settings): the copied rows replace them.
    for (const table of [...tables].reverse()) await tx.unsafe(`delete from "${table}"`);
    for (const table of tables) {
      const [{ total }] = await source.unsafe<{ total: number }[]>(
        `select count(*)::int as total from "${table}"`,
      );
      let copied = 0;
      while (copied < total) {
        const [{ rows }] = await source.unsafe<{ rows: string }[]>(
          `select coalesce(json_agg(t), '[]')::text as rows
             from (select * from "${table}" order by ctid offset ${copied} limit ${PAGE}) t`,
        );
        const hasIdentity = await tx<{ n: number }[]>`
            select count(*)::int as n from information_schema.columns
            where table_schema = 'public' and table_name = ${table} and is_identity = 'YES'`;
        await tx.unsafe(
          `insert into "${table}" ${hasIdentity[0].n ? "overriding system value" : ""}
             select * from json_populate_recordset(null::"${table}", $1::text::json)`,
          [rows],
        );
        copied += Math.min(PAGE, total - copied);
      }
      report[table] = total;
      say(`  ${table}: ${total} rows`);
    }
    // Identity sequences continue after the copied ids.
    const identities = await tx<{ table: string; column: string }[]>`
        select table_name as table, column_name as column from information_schema.columns
        where table_schema = 'public' and is_identity = 'YES'`;
    for (const { table, column } of identities) {
      await tx.unsafe(
        `select setval(pg_get_serial_sequence('"${table}"', '${column}'),
             coalesce((select max("${column}") from "${table}"), 0) + 1, false)`,
      );
    }
    say("migrate-to-postgres: checking row counts ...");
    for (const table of tables) {
      const [{ total }] = await tx.unsafe<{ total: number }[]>(
        `select count(*)::int as total from "${table}"`,
      );
      if (total !== report[table]) {
        throw new Error(
          `${table}: ${report[table]} rows in the embedded database, ${total} copied`,
        );
      }
    }
  });
}

if (import.meta.main) {
  const url = Deno.args[0];
  if (!url || !/^postgres(ql)?:\/\//.test(url)) {
    console.error(
      "usage: deno task migrate-to-postgres postgres://user:pass@host:5432/db\n" +
        "  copies the embedded database of DATA_DIR (default ./.data) into that empty database",
    );
    Deno.exit(2);
  }
  const dataDir = Deno.env.get("DATA_DIR") || "./.data";
  try {
    await Deno.stat(`${dataDir}/pglite`);
  } catch {
    console.error(`migrate-to-postgres: no embedded database in ${dataDir}/pglite (set DATA_DIR)`);
    Deno.exit(1);
  }
  try {
    const report = await moveToPostgres({ dataDir, targetUrl: url });
    const rows = Object.values(report).reduce((a, b) => a + b, 0);
    let secretKey = Deno.env.get("SECRET_KEY") ?? "";
    if (!secretKey) {
      secretKey = (await Deno.readTextFile(`${dataDir}/secret_key`).catch(() => "")).trim();
    }
    console.log(
      [
        `migrate-to-postgres: done, ${rows} rows in ${
          Object.keys(report).length
        } tables, counts match.`,
        "Start the service on PostgreSQL with (keep the SECRET_KEY secret and stable):",
        `  DATABASE_URL='${url}' SECRET_KEY='${secretKey}' deno task start`,
        `The embedded database in ${dataDir} was left as it was; remove it once you are sure.`,
      ].join("\n"),
    );
  } catch (err) {
    if (err instanceof DataDirLocked) {
      console.error(`migrate-to-postgres: ${err.message}`);
    } else {
      console.error(`migrate-to-postgres: ${(err as Error).message}; nothing was written.`);
    }
    Deno.exit(1);
  }
}
