/** Database-error helpers: what a PostgreSQL error from the `postgres` driver says. */

/** The SQLSTATE of a database error, or null for anything else. */
export function sqlState(err: unknown): string | null {
  if (typeof err !== "object" || err === null || !("code" in err)) return null;
  return typeof err.code === "string" ? err.code : null;
}

/** True for PostgreSQL's unique_violation (23505). */
export function isUniqueViolation(err: unknown): boolean {
  return sqlState(err) === "23505";
}

/**
 * The database could not be reached in time: no connection within the acquire timeout, or the
 * probe's own timeout. Raised by the service's pool wrapper (db/acquire.ts), never by the driver.
 */
export class DatabaseUnavailableError extends Error {
  readonly code = "DATABASE_UNAVAILABLE";

  constructor(message: string) {
    super(message);
    this.name = "DatabaseUnavailableError";
  }
}

/** Driver and socket codes of a connection that failed, closed or timed out. */
const CONNECTION_CODES = new Set([
  "DATABASE_UNAVAILABLE",
  "CONNECTION_CLOSED",
  "CONNECTION_ENDED",
  "CONNECTION_DESTROYED",
  "CONNECT_TIMEOUT",
  "ECONNREFUSED",
  "ECONNRESET",
  "ECONNABORTED",
  "EPIPE",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EHOSTDOWN",
  "EAI_AGAIN",
]);

/**
 * SQLSTATEs that say the server cannot serve now: 57P01 admin_shutdown, 57P02 crash_shutdown,
 * 57P03 cannot_connect_now, 53300 too_many_connections, 57014 query_canceled (the statement
 * timeout), and class 08 (connection exception).
 */
const UNAVAILABLE_STATES = new Set(["57P01", "57P02", "57P03", "53300", "57014"]);

/**
 * True when `err` says the database is unreachable or did not answer in time (not that the
 * request was wrong): the one place that decides which errors answer 503 `database_unavailable`.
 */
export function isDatabaseUnavailable(err: unknown): boolean {
  if (err instanceof DatabaseUnavailableError) return true;
  const code = sqlState(err);
  if (code === null) return err instanceof Deno.errors.ConnectionRefused;
  return CONNECTION_CODES.has(code) || UNAVAILABLE_STATES.has(code) || /^08[0-9A-Z]{3}$/.test(code);
}
