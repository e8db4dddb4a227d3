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
