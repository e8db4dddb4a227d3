/** JSON log lines on stdout. Never pass secrets, signed requests, tokens or Authorization headers. */

const ORDER = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 } as const;
type Level = keyof typeof ORDER;

let threshold: number = ORDER.info;

/** Sets the lowest level written (LOG_LEVEL). */
export function setLogLevel(level: Level): void {
  threshold = ORDER[level];
}

function write(level: Exclude<Level, "silent">, msg: string, fields?: Record<string, unknown>) {
  if (ORDER[level] < threshold) return;
  const line = JSON.stringify({ time: new Date().toISOString(), level, msg, ...fields });
  if (level === "error") console.error(line);
  else console.log(line);
}

/** The service logger. */
export const log = {
  debug: (msg: string, fields?: Record<string, unknown>) => write("debug", msg, fields),
  info: (msg: string, fields?: Record<string, unknown>) => write("info", msg, fields),
  warn: (msg: string, fields?: Record<string, unknown>) => write("warn", msg, fields),
  error: (msg: string, fields?: Record<string, unknown>) => write("error", msg, fields),
};
