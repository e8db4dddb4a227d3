/**
 * Command-line flags of the entry points. `deno task start` and `deno task serve` pass what
 * follows the task name to the script, so `--host`/`--port` are read here and win over
 * HOST/PORT; anything unknown stops the start (a flag meant for Deno must not be taken silently).
 */
import { parseArgs } from "node:util";

/** Flags of server/main.ts and server/serve.ts. */
export interface Flags {
  /** HOST and PORT as the flags set them (merged over the environment). */
  env: Record<string, string>;
  /** serve.ts: how many processes to run. */
  processes?: number;
  /** main.ts, as started by serve.ts: listen with SO_REUSEPORT beside its siblings. */
  reusePort: boolean;
  /** main.ts, as started by serve.ts: stop when standard input ends (the supervisor is gone). */
  supervised: boolean;
}

/** Thrown for a flag that is unknown or malformed; the message says what is expected. */
export class UsageError extends Error {}

/**
 * Parses `args` (Deno.args). A leading `serve` (the release's command word: `bin/portal-launcher
 * serve --port 8080`, tools/cli.ts) is the same as none.
 *
 * @example
 * ```ts
 * parseFlags(["--host", "0.0.0.0", "--port=8080"]).env; // { HOST: "0.0.0.0", PORT: "8080" }
 * parseFlags(["--hots", "x"]); // throws UsageError
 * ```
 */
export function parseFlags(args: string[]): Flags {
  if (args[0] === "serve") args = args.slice(1);
  let values;
  try {
    ({ values } = parseArgs({
      args,
      strict: true,
      allowPositionals: false,
      options: {
        host: { type: "string" },
        port: { type: "string" },
        processes: { type: "string" },
        "reuse-port": { type: "boolean" },
        supervised: { type: "boolean" },
      },
    }));
  } catch (err) {
    throw new UsageError(
      `${(err as Error).message}\nusage: [--host ADDRESS] [--port PORT] (serve: [--processes N])`,
    );
  }
  const env: Record<string, string> = {};
  if (values.host !== undefined) env.HOST = values.host;
  if (values.port !== undefined) env.PORT = values.port;
  let processes: number | undefined;
  if (values.processes !== undefined) {
    if (!/^\d+$/.test(values.processes) || !(Number(values.processes) >= 1)) {
      throw new UsageError("--processes: expected a whole number from 1");
    }
    processes = Number(values.processes);
  }
  return {
    env,
    processes,
    reusePort: values["reuse-port"] ?? false,
    supervised: values.supervised ?? false,
  };
}
