/** Database connection: PostgreSQL through DATABASE_URL, or an embedded PGlite under DATA_DIR. */
import postgres from "postgres";
import { denoSocketOption, usesDenoSocket } from "./deno_socket.ts";
import { boundAcquire, boundQuery } from "./acquire.ts";
import { DatabaseUnavailableError } from "./errors.ts";

/** The `postgres` driver handle every query function takes first. */
export type Sql = postgres.Sql;
/** A handle that is either the pool or a transaction inside `sql.begin`. */
export type Tx = postgres.Sql | postgres.TransactionSql;

/**
 * Wraps plain JSON data (objects, arrays, scalars) as a jsonb parameter. PostgreSQL's jsonb (like
 * its text) cannot hold U+0000 or half of a UTF-16 surrogate pair, which a refused launch's payload
 * may carry: each is stored as U+FFFD, in keys and values alike, so the record is written rather
 * than lost.
 */
export function jsonb(tx: Tx, value: unknown): postgres.Parameter {
  return tx.json(JSON.parse(storableJsonText(JSON.stringify(value ?? null))));
}

/**
 * JSON.stringify's output with every escape jsonb refuses written as U+FFFD: `\u0000`, and
 * `\ud800` to `\udfff` (JSON.stringify escapes a surrogate only when it is half a pair). An
 * escape after an escaped backslash is text, and is kept.
 */
export function storableJsonText(json: string): string {
  return json.replace(
    /(\\*)\\u(?:0000|d[89a-f][0-9a-f]{2})/g,
    (all, slashes: string) => slashes.length % 2 ? all : `${slashes}\\ufffd`,
  );
}

/** `text` with every U+0000 and half surrogate pair replaced by U+FFFD (PostgreSQL refuses both). */
export function storableText(text: string): string {
  return text.replaceAll("\0", "\uFFFD").toWellFormed();
}

/** An open database: the driver handle, which mode it runs in, and how to close it. */
export interface Database {
  sql: Sql;
  /**
   * A handle on a real server session: DATABASE_DIRECT_URL's (one connection, opened on first
   * use) when set, else `sql`. For work a transaction-mode pooler cannot carry: LISTEN, advisory
   * locks held across statements, session settings; migrations run on it.
   */
  direct: Sql;
  mode: "postgres" | "embedded";
  /** Embedded mode: a gzipped tar of the data directory, consistent at a transaction boundary. */
  dumpDataDir?: () => Promise<Blob>;
  close(): Promise<void>;
}

/** Options for connect(). */
export interface ConnectOptions {
  databaseUrl?: string;
  /** Folder holding the embedded database (`<dataDir>/pglite`); used when databaseUrl is unset. */
  dataDir?: string;
  /** Pool size against PostgreSQL (default 10). The embedded database always uses one connection. */
  max?: number;
  /** Called with the SQL text of each query sent to the server (used to count round trips). */
  onQuery?: (query: string) => void;
  /** Called with each notice the server raises (migrations report what they did this way). */
  onNotice?: (message: string, code?: string) => void; // observability: and its SQLSTATE
  /** How long opening one connection may take (default 5000 ms; the driver's own is 30 s). */
  connectTimeoutMs?: number;
  /** PostgreSQL's statement_timeout for the service's connections (default 15000 ms; 0: none). */
  statementTimeoutMs?: number;
  /** How long a query or transaction may wait for a connection (default 5000 ms). */
  acquireTimeoutMs?: number;
  /**
   * false: no prepared statements (PgBouncer in transaction mode), like `?prepare=false` in the
   * URL. Left unset, the URL decides (prepared statements by default).
   */
  prepare?: boolean;
  /** PostgreSQL URL that bypasses a pooler, for `Database.direct` (default: the pool itself). */
  directUrl?: string;
}

/** The documented defaults of the timeouts (README, docs/operations.md). */
export const DATABASE_TIMEOUT_DEFAULTS = {
  connectTimeoutMs: 5_000,
  statementTimeoutMs: 15_000,
  acquireTimeoutMs: 5_000,
  probeTimeoutMs: 1_000,
} as const;

/**
 * Delay before reconnecting after a failed connection, in seconds: the driver's own curve
 * (0.5–1 × 3^retries / 100) capped at 1 s instead of 20 s, so that the pool tries again within a
 * second of PostgreSQL's return. Attempts are made only for queries that wait, never in a loop.
 */
export function reconnectDelay(retries: number): number {
  return (0.5 + Math.random() / 2) * Math.min(3 ** retries / 100, 1);
}

/** The driver options of the timeouts and prepared statements (PostgreSQL mode). */
function faultOptions(options: ConnectOptions) {
  const statementTimeout = options.statementTimeoutMs ??
    DATABASE_TIMEOUT_DEFAULTS.statementTimeoutMs;
  return {
    connect_timeout: (options.connectTimeoutMs ?? DATABASE_TIMEOUT_DEFAULTS.connectTimeoutMs) /
      1000,
    backoff: reconnectDelay,
    connection: {
      ...driverOptions.connection,
      ...(statementTimeout > 0 ? { statement_timeout: statementTimeout } : {}),
    },
    ...(options.prepare === false ? { prepare: false } : {}),
  };
}

/**
 * True when the database answers `select 1` within `timeoutMs` (default 1000 ms), whatever the
 * pool is doing: the readiness probe. It never throws.
 */
export async function probeDatabase(
  sql: Sql,
  timeoutMs: number = DATABASE_TIMEOUT_DEFAULTS.probeTimeoutMs,
): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<false>((resolve) => timer = setTimeout(() => resolve(false), timeoutMs));
  try {
    return await Promise.race([
      boundQuery(sql`select 1`, timeoutMs).then(() => true, () => false),
      late,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** Throws DatabaseUnavailableError unless the database answers within `timeoutMs`. */
export async function requireDatabase(sql: Sql, timeoutMs: number): Promise<void> {
  if (!await probeDatabase(sql, timeoutMs)) {
    throw new DatabaseUnavailableError(`The database did not answer within ${timeoutMs} ms`);
  }
}

const driverOptions = {
  onnotice: () => {},
  // snake_case columns come back as camelCase properties; undefined values are sent as null.
  transform: { column: { from: postgres.toCamel, to: postgres.fromCamel }, undefined: null },
  // int8 (ids, counts) as JS numbers: ids stay far below 2^53.
  types: {
    int8: {
      to: 20,
      from: [20],
      serialize: (value: number) => String(value),
      parse: (value: string) => Number(value),
    },
  },
  connection: { application_name: "portal-launcher" },
};

/**
 * Opens the database named by the options: PostgreSQL when databaseUrl is set, else PGlite. On
 * PostgreSQL the handle's queries and transactions wait at most `acquireTimeoutMs` for a
 * connection; the embedded database runs in this process and has no outage to bound.
 */
export async function connect(options: ConnectOptions): Promise<Database> {
  if (options.databaseUrl) {
    const acquireTimeoutMs = options.acquireTimeoutMs ??
      DATABASE_TIMEOUT_DEFAULTS.acquireTimeoutMs;
    const pool = postgres(options.databaseUrl, {
      ...driverOptions,
      ...faultOptions(options),
      onnotice: (n: postgres.Notice) => options.onNotice?.(n.message ?? "", n.code),
      max: options.max ?? 10,
      ...(usesDenoSocket(options.databaseUrl, { PGSSL: Deno.env.get("PGSSL") })
        ? denoSocketOption
        : {}),
      debug: options.onQuery
        ? (_conn: number, query: string) => options.onQuery?.(query)
        : undefined,
    });
    const sql = boundAcquire(pool, acquireTimeoutMs);
    try {
      await sql`select 1`;
    } catch (err) {
      await pool.end({ timeout: 0 });
      throw err;
    }
    const session = options.directUrl
      ? postgres(options.directUrl, {
        ...driverOptions,
        ...faultOptions({ ...options, prepare: undefined }),
        onnotice: (n: postgres.Notice) => options.onNotice?.(n.message ?? "", n.code),
        max: 1,
        ...(usesDenoSocket(options.directUrl, { PGSSL: Deno.env.get("PGSSL") })
          ? denoSocketOption
          : {}),
      })
      : null;
    return {
      sql,
      direct: session ? boundAcquire(session, acquireTimeoutMs) : sql,
      mode: "postgres",
      async close() {
        await Promise.all([pool.end({ timeout: 5 }), session?.end({ timeout: 5 })]);
      },
    };
  }
  const dataDir = options.dataDir ?? "./.data";
  await Deno.mkdir(dataDir, { recursive: true });
  // Loaded only in embedded mode: a PostgreSQL deployment never pays for the WebAssembly build.
  const { PGlite } = await import("@electric-sql/pglite");
  const { PGLiteSocketServer } = await import("@electric-sql/pglite-socket");
  const db = await PGlite.create(`${dataDir}/pglite`);
  const server = new PGLiteSocketServer({ db, host: "127.0.0.1", port: 0 });
  await server.start();
  const port = Number(server.getServerConn().split(":").pop());
  const sql = postgres({
    ...driverOptions,
    onnotice: (n: postgres.Notice) => options.onNotice?.(n.message ?? "", n.code),
    host: "127.0.0.1",
    port,
    user: "postgres",
    database: "postgres",
    max: 1,
    ...denoSocketOption,
    debug: options.onQuery ? (_conn: number, query: string) => options.onQuery?.(query) : undefined,
  });
  await sql`select 1`;
  return {
    sql,
    direct: sql,
    mode: "embedded",
    dumpDataDir: () => db.dumpDataDir("gzip"),
    async close() {
      await sql.end({ timeout: 5 });
      await server.stop();
      await db.close();
    },
  };
}
