/**
 * What the database handle tells operators: a span per query (OpenTelemetry, through
 * `@opentelemetry/api`) and how the pool is used. `instrument(sql)` wraps the driver handle; its
 * queries, `unsafe` statements and transactions (with the queries on their handle) work as
 * before. A span is named by its statement, never its values: the SQL operation and what it
 * reads or calls (`SELECT launch_apply`), with the query function that sent it; values travel as
 * parameters and are never read. Spans are made only inside a trace (a request, a callback
 * delivery): the background workers' polls make none. `traceparent()` is the W3C trace context of
 * the active span, stored with each callback event so its delivery links back to its change.
 */
import { type Span, SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import type postgres from "postgres";

type Sql = postgres.Sql;

/** True when Deno's OpenTelemetry tracing is on (OTEL_DENO=true): it registered a tracer. */
export const TRACING: boolean = (globalThis as Record<symbol, { trace?: unknown } | undefined>)[
  Symbol.for("opentelemetry.js.api.1")
]?.trace !== undefined;

const tracer = trace.getTracer("portal-launcher/db");

/** A statement as its span names it: operation, what it reads or calls, and who sent it. */
interface Statement {
  name: string;
  attributes: Record<string, string>;
}

/** What the wrapper uses of the driver's Query (a Promise subclass, run once its handler runs). */
interface DriverQuery {
  handler: Handler;
  /** The connection's backend once the query is on one; null while it waits for one. */
  state: unknown;
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
}

type Handler = ((q: DriverQuery) => void) & { debug?: unknown };

function isDriverQuery(value: unknown): value is DriverQuery {
  return value instanceof Promise &&
    typeof (value as Partial<DriverQuery>).handler === "function" && "state" in value;
}

/** How one pool is used: queries in flight on it and transactions holding or awaiting a connection. */
interface PoolTracker {
  queries: Set<DriverQuery>;
  transactionsActive: number;
  transactionsWaiting: number;
}

/** Connections in use and work waiting for one, as `poolUse` reports them. */
export interface PoolUse {
  /** Connections running a query or holding a transaction. */
  inUse: number;
  /** Queries and transactions waiting for a connection. */
  waiting: number;
}

const CALLS = /^select\s+([a-z_][a-z0-9_.]*)\s*\(/;
const TARGET: Record<string, RegExp> = {
  select: /\bfrom\s+([a-z_][a-z0-9_.]*)(\s*\()?/,
  with: /\bfrom\s+([a-z_][a-z0-9_.]*)(\s*\()?/,
  insert: /^insert\s+into\s+([a-z_][a-z0-9_.]*)()/,
  update: /^update\s+([a-z_][a-z0-9_.]*)()/,
  delete: /^delete\s+from\s+([a-z_][a-z0-9_.]*)()/,
};
/** Functions that name no statement of their own (`select count(*) from x` is about x). */
const AGGREGATES = new Set(["count", "sum", "min", "max", "avg", "coalesce", "exists", "array"]);

/** The statement of an SQL text: `SELECT launch_apply`, `INSERT launches`, `BEGIN`. */
export function statementOf(text: string, caller: string | null = null): Statement {
  const sql = text.slice(0, 4_000).replace(/--[^\n]*/g, " ").replace(/\s+/g, " ").trim()
    .toLowerCase();
  const operation = /^[a-z]+/.exec(sql)?.[0] ?? "query";
  const attributes: Record<string, string> = {
    "db.system.name": "postgresql",
    "db.operation.name": operation.toUpperCase(),
  };
  const call = CALLS.exec(sql);
  let target: string | null = null;
  if (call && !AGGREGATES.has(call[1])) {
    target = attributes["db.stored_procedure.name"] = call[1];
  } else {
    const found = TARGET[operation]?.exec(sql);
    if (found) {
      target = found[1];
      attributes[found[2] ? "db.stored_procedure.name" : "db.collection.name"] = target;
    }
  }
  const name = target ? `${operation.toUpperCase()} ${target}` : operation.toUpperCase();
  attributes["db.query.summary"] = name;
  if (caller) attributes["code.function.name"] = caller;
  return { name, attributes };
}

/** The function that called the handle (the query function of db/queries), from the stack. */
function callerName(): string | null {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 8;
  const stack = new Error().stack ?? "";
  Error.stackTraceLimit = limit;
  for (const line of stack.split("\n").slice(1)) {
    if (line.includes("/db/instrument.ts")) continue;
    return /at (?:async )?([\w$.]+) \(/.exec(line)?.[1] ?? null;
  }
  return null;
}

// A tagged template's strings array is one object per call site: its statement is worked out
// once. `unsafe` texts are remembered by text, up to a bound.
const sites = new WeakMap<TemplateStringsArray, Statement>();
const texts = new Map<string, Statement>();

function siteStatement(strings: TemplateStringsArray): Statement {
  let statement = sites.get(strings);
  if (!statement) {
    statement = statementOf(strings.join("?"), callerName());
    sites.set(strings, statement);
  }
  return statement;
}

function textStatement(text: string): Statement {
  let statement = texts.get(text);
  if (!statement) {
    statement = statementOf(text);
    if (texts.size < 256) texts.set(text, statement);
  }
  return statement;
}

function failed(span: Span, err: unknown): void {
  // The SQLSTATE only: a PostgreSQL message or detail can quote the values.
  const code = (err as { code?: unknown })?.code;
  const type = typeof code === "string" ? code : (err as Error)?.name ?? "Error";
  span.setAttribute("error.type", type);
  if (typeof code === "string") span.setAttribute("db.response.status_code", code);
  span.setStatus({ code: SpanStatusCode.ERROR });
}

/** Makes `query` report its span (within a trace) and count in `pool` while it runs. */
function watch(query: DriverQuery, statement: Statement, pool: PoolTracker | null): void {
  const inner = query.handler;
  const handler = (run: DriverQuery) => {
    const span = TRACING && trace.getActiveSpan()
      ? tracer.startSpan(statement.name, {
        kind: SpanKind.CLIENT,
        attributes: statement.attributes,
      })
      : undefined;
    pool?.queries.add(run);
    const { resolve, reject } = run;
    run.resolve = (value) => {
      pool?.queries.delete(run);
      span?.end();
      resolve(value);
    };
    run.reject = (err) => {
      pool?.queries.delete(run);
      if (span) {
        failed(span, err);
        span.end();
      }
      reject(err);
    };
    inner(run);
  };
  query.handler = Object.assign(handler, { debug: inner.debug });
}

type BeginArgs = [string, (tx: postgres.TransactionSql) => unknown] | [
  (tx: postgres.TransactionSql) => unknown,
];

/** `sql.begin` counting the transaction in `pool` and instrumenting its handle. */
function watchBegin(sql: Sql, pool: PoolTracker) {
  return (...args: BeginArgs): Promise<unknown> => {
    const fn = args[args.length - 1] as (tx: postgres.TransactionSql) => unknown;
    const options = args.length === 2 ? [args[0] as string] : [];
    let state: "waiting" | "active" | "done" = "waiting";
    pool.transactionsWaiting++;
    const work = (tx: postgres.TransactionSql) => {
      if (state === "waiting") {
        state = "active";
        pool.transactionsWaiting--;
        pool.transactionsActive++;
      }
      return fn(wrap(tx, null) as postgres.TransactionSql);
    };
    const settle = () => {
      if (state === "waiting") pool.transactionsWaiting--;
      if (state === "active") pool.transactionsActive--;
      state = "done";
    };
    // deno-lint-ignore no-explicit-any
    const begun: Promise<unknown> = (sql.begin as any)(...options, work);
    return begun.finally(settle);
  };
}

const trackers = new WeakMap<object, PoolTracker>();

function wrap<T extends Sql | postgres.TransactionSql>(sql: T, pool: PoolTracker | null): T {
  const wrapped = new Map<PropertyKey, unknown>();
  const unsafe = sql.unsafe as (...args: unknown[]) => unknown;
  wrapped.set("unsafe", (...args: unknown[]) => {
    const query = unsafe(...args);
    if (isDriverQuery(query)) watch(query, textStatement(String(args[0])), pool);
    return query;
  });
  if (pool) wrapped.set("begin", watchBegin(sql as Sql, pool));
  return new Proxy(sql, {
    apply(target, thisArg, args) {
      const query = Reflect.apply(target, thisArg, args);
      const strings = args[0] as TemplateStringsArray | undefined;
      if (isDriverQuery(query) && Array.isArray(strings?.raw)) {
        watch(query, siteStatement(strings), pool);
      }
      return query;
    },
    get(target, name, receiver) {
      return wrapped.has(name) ? wrapped.get(name) : Reflect.get(target, name, receiver);
    },
  });
}

/**
 * The handle with a span per query (within a trace) and its pool's use counted (`poolUse`).
 * Instrumenting an instrumented handle returns it as it is.
 */
export function instrument(sql: Sql): Sql {
  if (trackers.has(sql)) return sql;
  const pool: PoolTracker = { queries: new Set(), transactionsActive: 0, transactionsWaiting: 0 };
  const handle = wrap(sql, pool);
  trackers.set(handle, pool);
  return handle;
}

/**
 * The pool's use now: connections running a query (queries on one connection count once) or
 * holding a transaction, and queries and transactions waiting for a connection. Null for a
 * handle `instrument` did not make.
 */
export function poolUse(sql: Sql): PoolUse | null {
  const pool = trackers.get(sql);
  if (!pool) return null;
  const connections = new Set<unknown>();
  let waiting = pool.transactionsWaiting;
  for (const query of pool.queries) {
    if (query.state === null) waiting++;
    else connections.add(query.state);
  }
  return { inUse: connections.size + pool.transactionsActive, waiting };
}

/**
 * The W3C `traceparent` of the active span (`00-<trace id>-<span id>-<flags>`), or null outside
 * a trace or with tracing off: stored with a callback event, it links the event's delivery to
 * the change that emitted it.
 */
export function traceparent(): string | null {
  if (!TRACING) return null;
  const context = trace.getActiveSpan()?.spanContext();
  if (!context || !trace.isSpanContextValid(context)) return null;
  return `00-${context.traceId}-${context.spanId}-0${context.traceFlags & 1}`;
}
