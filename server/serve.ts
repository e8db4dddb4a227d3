/**
 * Entry of `deno task serve [--host ADDRESS] [--port PORT] [--processes N]`: the service on every
 * core, PostgreSQL only (the embedded database serves one process). It runs N copies of
 * server/main.ts (default: one per core) sharing the port with SO_REUSEPORT, each draining and
 * stopping on SIGTERM as `deno task start` does (server/ops/supervisor.ts).
 *
 * Not `deno serve --parallel` (this file's role before): on SIGTERM Deno closes that listener at
 * once, before a load balancer can see a draining /readyz, and no code of ours can defer it; its
 * workers' console lines are also prefixed `[serve-worker-N ]` (docs/operations.md#all-cores).
 */
import { type Config, ConfigError, loadConfig } from "./config.ts";
import { type Flags, parseFlags, UsageError } from "./ops/cli.ts";
import { setLogLevel } from "./log.ts";
import { supervise } from "./ops/supervisor.ts";

function fail(message: string): never {
  console.error(message);
  Deno.exit(1);
}

let flags: Flags, config: Config;
try {
  flags = parseFlags(Deno.args);
  config = loadConfig({ ...Deno.env.toObject(), ...flags.env });
} catch (err) {
  if (!(err instanceof ConfigError || err instanceof UsageError)) throw err;
  fail(err.message);
}
if (!config.databaseUrl) {
  fail("deno task serve needs DATABASE_URL (the embedded database serves a single process)");
}
if (config.port === 0) fail("deno task serve needs a port other than 0 (its processes share it)");
setLogLevel(config.logLevel);
supervise(config, flags.processes ?? navigator.hardwareConcurrency);
