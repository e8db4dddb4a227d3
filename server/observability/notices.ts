/**
 * Database notices in the log. A notice is what the server says about a statement that went
 * through: a migration's report (info), or that an `if not exists` found the thing there already
 * (`relation "schema_migrations" already exists, skipping`), which every restart says and which
 * is only worth a debug line. Told apart by SQLSTATE, not by the text (which the server's
 * lc_messages may translate).
 */
import { log } from "../log.ts";

/**
 * SQLSTATEs of "already exists, skipping": duplicate_table (relations, indexes),
 * duplicate_schema, duplicate_object, duplicate_column, duplicate_function.
 */
const ALREADY_EXISTS = new Set(["42P07", "42P06", "42710", "42701", "42723"]);

/** Logs one database notice: at debug when it only says an `if not exists` skipped, else info. */
export function logDatabaseNotice(message: string, code?: string): void {
  const fields = { message, ...(code ? { code } : {}) };
  if (code && ALREADY_EXISTS.has(code)) log.debug("database notice", fields);
  else log.info("database notice", fields);
}
