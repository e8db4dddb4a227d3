/**
 * JSON log lines: one object per line, from the first line to the last (`time`, `level`, `msg`,
 * then the fields). Info and below go to stdout, errors to stderr. Never pass secrets, signed
 * requests, tokens or Authorization headers.
 */

const ORDER = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 } as const;
type Level = keyof typeof ORDER;

let threshold: number = ORDER.info;

/** Sets the lowest level written (LOG_LEVEL). */
export function setLogLevel(level: Level): void {
  threshold = ORDER[level];
}

/** True when records of `level` are written: a caller can skip building a dropped record. */
export function logs(level: Exclude<Level, "silent">): boolean {
  return ORDER[level] >= threshold;
}

/** One log line: the JSON record of `msg` and `fields`. */
export function logLine(
  level: Exclude<Level, "silent">,
  msg: string,
  fields?: Record<string, unknown>,
): string {
  return JSON.stringify({ time: new Date().toISOString(), level, msg, ...fields });
}

function emit(level: Exclude<Level, "silent">, line: string): void {
  if (level === "error") console.error(line);
  else console.log(line);
}

function write(level: Exclude<Level, "silent">, msg: string, fields?: Record<string, unknown>) {
  if (logs(level)) emit(level, logLine(level, msg, fields));
}

/** The service logger. */
export const log = {
  debug: (msg: string, fields?: Record<string, unknown>) => write("debug", msg, fields),
  info: (msg: string, fields?: Record<string, unknown>) => write("info", msg, fields),
  warn: (msg: string, fields?: Record<string, unknown>) => write("warn", msg, fields),
  error: (msg: string, fields?: Record<string, unknown>) => write("error", msg, fields),
  /**
   * An info record written whatever LOG_LEVEL says: the start record, which carries what the
   * operator needs once (where the service listens; on a first start, the demo's secrets).
   */
  always: (msg: string, fields?: Record<string, unknown>) =>
    emit("info", logLine("info", msg, fields)),
};

/**
 * A reason the process cannot start (invalid configuration, a data directory in use), on
 * stderr: as text when stderr is a terminal (someone reads it), else as one JSON error record.
 */
export function startFailure(message: string): void {
  console.error(Deno.stderr.isTerminal() ? message : logLine("error", message));
}
