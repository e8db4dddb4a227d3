/** Entry point: `deno task start`. Serves the app on HOST:PORT until SIGINT or SIGTERM. */
import { SchemaNotCurrent, type Service, startService } from "./service.ts";
import { ConfigError, loadConfig } from "./config.ts";
import { log } from "./log.ts";
import { LAUNCH_ROUTE } from "./launch/contract.ts";
import { DataDirLocked } from "../db/data_dir_lock.ts";

let config;
try {
  config = loadConfig(Deno.env.toObject());
} catch (err) {
  if (!(err instanceof ConfigError)) throw err;
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
  onListen: ({ hostname, port }) => {
    service.dataDirLock?.setPort(port).catch(() => {});
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
async function stop(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  log.info("shutting down", { signal });
  await server.shutdown();
  await service.close();
  Deno.exit(0);
}
Deno.addSignalListener("SIGINT", () => stop("SIGINT"));
Deno.addSignalListener("SIGTERM", () => stop("SIGTERM"));
