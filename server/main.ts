/**
 * Entry point: `deno task start [--host ADDRESS] [--port PORT]`. Serves the app on HOST:PORT until
 * SIGINT or SIGTERM, then drains and stops (server/ops/shutdown.ts). `deno task serve` runs one of
 * these per core (server/serve.ts).
 */
import { SchemaNotCurrent, type Service, startService } from "./service.ts";
import { type Config, ConfigError, loadConfig } from "./config.ts";
import { log } from "./log.ts";
import { LAUNCH_ROUTE } from "./launch/contract.ts";
import { DataDirLocked } from "../db/data_dir_lock.ts";
import { type Flags, parseFlags, UsageError } from "./ops/cli.ts";
import { shutDown } from "./ops/shutdown.ts";

let config: Config, flags: Flags;
try {
  flags = parseFlags(Deno.args);
  config = loadConfig({ ...Deno.env.toObject(), ...flags.env });
} catch (err) {
  if (!(err instanceof ConfigError || err instanceof UsageError)) throw err;
  console.error(err.message);
  Deno.exit(1);
}

let service: Service;
try {
  service = await startService(config);
} catch (err) {
  if (!(err instanceof DataDirLocked || err instanceof SchemaNotCurrent)) throw err;
  console.error(err.message);
  Deno.exit(1);
}
const { publicUrl, portalPrefix } = config;

const server = Deno.serve({
  hostname: config.host,
  port: config.port,
  // serve.ts's processes share the port; the kernel spreads connections among them.
  reusePort: flags.reusePort,
  onListen: ({ hostname, port }) => {
    service.dataDirLock?.setPort(port).catch(() => {});
    // Under serve.ts the log is JSON lines only: one line instead of the banner.
    if (flags.supervised) {
      return log.info("listening", { url: `http://${hostname}:${port}`, ...service.migrated });
    }
    const lines = [
      `Portal Launcher ${config.version} listening on http://${hostname}:${port} (public URL ${publicUrl})`,
      `  database:   ${
        service.db.mode === "embedded"
          ? `embedded PGlite in ${config.dataDir}/pglite`
          : "PostgreSQL (DATABASE_URL)"
      }`,
      `  launch:     POST ${publicUrl}${portalPrefix}${
        LAUNCH_ROUTE.replace(":app_name", "<app_name>")
      }`,
      `  token:      POST ${publicUrl}/api/v1/oauth2/token`,
      `  admin API:  ${publicUrl}/api/v1/admin`,
      `  health:     ${publicUrl}/healthz, ${publicUrl}/readyz`,
    ];
    const { migrations, functions } = service.migrated;
    if (migrations.length) lines.push(`  migrations applied: ${migrations.join(", ")}`);
    if (functions.length) lines.push(`  functions applied: ${functions.join(", ")}`);
    const demo = service.demo;
    if (demo) {
      lines.push(
        "",
        "First start: demo data created. These secrets are printed only once; save them now.",
        `  admin login:   ${demo.adminEmail} / ${demo.adminPassword}`,
        `  demo app:      ${demo.appName}   API key: ${demo.apiKey}`,
        `  launch URL:    ${demo.launchUrl}`,
        `  API client:    client_id=${demo.clientId}  client_secret=${demo.clientSecret}`,
        "  get a token:",
        `    curl -s -X POST ${publicUrl}/api/v1/oauth2/token -u '${demo.clientId}:${demo.clientSecret}' -d grant_type=client_credentials`,
        "  mock CRM with <portal-launcher> (another terminal), then open http://localhost:8001/:",
        `    PORTAL_API_KEY=${demo.apiKey} PORTAL_CALLBACK_SECRET=${demo.callbackSecret} ` +
          `PORTAL_URL=${publicUrl}${config.portalPrefix} deno task demo`,
        demo.callbacks
          ? "  callbacks: the demo app calls the mock CRM back at http://localhost:8001/callbacks"
          : "  callbacks: off for the demo (localhost is a private address); to see them, start " +
            "the first time with CALLBACK_ALLOW_PRIVATE_NETWORKS=true",
      );
    }
    console.log(lines.join("\n"));
  },
}, service.app.fetch);

let stopping = false;
function stop(signal: string): void {
  if (stopping) return;
  stopping = true;
  // Whatever hangs, the process is gone within SHUTDOWN_TIMEOUT_MS (exit 1 says it overran).
  setTimeout(() => {
    log.error("shutdown overran SHUTDOWN_TIMEOUT_MS; exiting", { ms: config.shutdownTimeoutMs });
    Deno.exit(1);
  }, config.shutdownTimeoutMs);
  shutDown(server, service, config, signal).then(() => Deno.exit(0), (err) => {
    log.error("shutdown failed", { error: String(err) });
    Deno.exit(1);
  });
}
Deno.addSignalListener("SIGINT", () => stop("SIGINT"));
Deno.addSignalListener("SIGTERM", () => stop("SIGTERM"));
if (flags.supervised) {
  // serve.ts holds our standard input open: when it ends, the supervisor is gone (even killed).
  (async () => {
    for await (const _ of Deno.stdin.readable) { /* nothing is sent; wait for the end */ }
    stop("supervisor gone");
  })();
}
