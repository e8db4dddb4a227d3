/** Entry point: `deno task start`. Serves the app on HOST:PORT until SIGINT or SIGTERM. */
import { startService } from "./service.ts";
import { ConfigError, loadConfig } from "./config.ts";
import { log } from "./log.ts";
import { LAUNCH_ROUTE } from "./launch/contract.ts";

let config;
try {
  config = loadConfig(Deno.env.toObject());
} catch (err) {
  if (!(err instanceof ConfigError)) throw err;
  console.error(err.message);
  Deno.exit(1);
}

const service = await startService(config);
const { publicUrl, portalPrefix } = config;

const server = Deno.serve({
  hostname: config.host,
  port: config.port,
  onListen: ({ hostname, port }) => {
    const lines = [
      `Portal Launcher listening on http://${hostname}:${port} (public URL ${publicUrl})`,
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
    if (service.migrated.length) lines.push(`  migrations applied: ${service.migrated.join(", ")}`);
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
        `    PORTAL_API_KEY=${demo.apiKey} PORTAL_URL=${publicUrl}${config.portalPrefix} deno task demo`,
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
