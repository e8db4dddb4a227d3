/**
 * The pool-acquire timeout the driver lacks. postgres.js queues a query while every connection
 * is busy or (re)connecting, for as long as that takes: during a database outage requests hung
 * for the whole outage. `boundAcquire` wraps the pool handle so that a query, or a transaction's
 * BEGIN, that is not on a connection within `timeoutMs` fails with DatabaseUnavailableError, and
 * never runs later: a queued query is taken out of the driver's queue (its `cancel()`, which for a
 * query not yet sent only dequeues it), a transaction whose BEGIN runs late rolls back at once.
 * Queries inside a transaction already hold their connection and are not wrapped.
 */
import type postgres from "postgres";
import { DatabaseUnavailableError } from "./errors.ts";

type Handler = ((q: DriverQuery) => void) & { debug?: unknown; unbounded?: Handler };

/** What the wrapper uses of the driver's Query (a Promise subclass; not in its type declarations). */
interface DriverQuery {
  handler: Handler;
  /** Null until the query is handed to a connection. */
  state: unknown;
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
  cancel(): unknown;
}

function isDriverQuery(value: unknown): value is DriverQuery {
  return value instanceof Promise &&
    typeof (value as Partial<DriverQuery>).handler === "function" &&
    "state" in value;
}

function unavailable(timeoutMs: number): DatabaseUnavailableError {
  return new DatabaseUnavailableError(`No database connection within ${timeoutMs} ms`);
}

/**
 * Bounds how long `query` may wait for a connection once it runs: past `timeoutMs` without one,
 * it is dequeued and rejected with DatabaseUnavailableError. Returns the query. Bounding a
 * bounded query replaces its bound.
 */
export function boundQuery<T>(query: T, timeoutMs: number): T {
  if (!isDriverQuery(query)) return query;
  const q = query;
  const handler: Handler = q.handler.unbounded ?? q.handler;
  const bounded = (run: DriverQuery) => {
    const clock: { timer?: ReturnType<typeof setTimeout> } = {};
    let settled = false;
    const { resolve, reject } = run;
    run.resolve = (value) => {
      settled = true;
      clearTimeout(clock.timer);
      resolve(value);
    };
    run.reject = (err) => {
      settled = true;
      clearTimeout(clock.timer);
      reject(err);
    };
    handler(run);
    if (settled || run.state !== null) return; // on a connection at once: the usual case
    clock.timer = setTimeout(() => {
      if (settled || run.state !== null) return;
      run.reject = () => reject(unavailable(timeoutMs));
      run.cancel();
    }, timeoutMs);
  };
  q.handler = Object.assign(bounded, { debug: handler.debug, unbounded: handler });
  return query;
}

/** Options of a transaction (`sql.begin(options, fn)`) or just its function. */
type BeginArgs = [string, (tx: postgres.TransactionSql) => unknown] | [
  (tx: postgres.TransactionSql) => unknown,
];

/**
 * `sql.begin` whose BEGIN must be on a connection within `timeoutMs`; past that the caller gets
 * DatabaseUnavailableError, and a BEGIN that still runs later rolls back before any work.
 */
function boundBegin(sql: postgres.Sql, timeoutMs: number) {
  return (...args: BeginArgs): Promise<unknown> => {
    const fn = args[args.length - 1] as (tx: postgres.TransactionSql) => unknown;
    const options = args.length === 2 ? [args[0] as string] : [];
    let started = false;
    let expired = false;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        if (started) return;
        expired = true;
        reject(unavailable(timeoutMs));
      }, timeoutMs);
      const work = (tx: postgres.TransactionSql) => {
        clearTimeout(timer);
        if (expired) throw unavailable(timeoutMs); // rolled back: the caller has had its answer
        started = true;
        return fn(tx);
      };
      // deno-lint-ignore no-explicit-any
      (sql.begin as any)(...options, work).then(
        (value: unknown) => {
          clearTimeout(timer);
          resolve(value);
        },
        (err: unknown) => {
          clearTimeout(timer);
          reject(err); // ignored when the timeout answered first
        },
      );
    });
  };
}

/**
 * The pool handle with the acquire timeout on every query it makes (tagged templates, `unsafe`,
 * `file`) and on `begin`; everything else is the driver's own.
 */
export function boundAcquire(sql: postgres.Sql, timeoutMs: number): postgres.Sql {
  const begin = boundBegin(sql, timeoutMs);
  const wrapped = new Map<PropertyKey, unknown>();
  for (const name of ["unsafe", "file"] as const) {
    const original = sql[name] as (...args: unknown[]) => unknown;
    wrapped.set(name, (...args: unknown[]) => boundQuery(original(...args), timeoutMs));
  }
  wrapped.set("begin", begin);
  return new Proxy(sql, {
    apply(target, thisArg, args) {
      return boundQuery(Reflect.apply(target, thisArg, args), timeoutMs);
    },
    get(target, name, receiver) {
      return wrapped.has(name) ? wrapped.get(name) : Reflect.get(target, name, receiver);
    },
  });
}
