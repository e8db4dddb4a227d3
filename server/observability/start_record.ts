/**
 * What a process says once it listens: one JSON record (`"msg": "listening"`) in the log, or,
 * when its standard output is a terminal, the same facts as a banner for people to read. On the
 * first start with nothing configured (embedded mode) both carry the demo's secrets, printed that
 * once.
 */
import type { Migrated } from "../../db/migrate.ts";
import { LAUNCH_ROUTE } from "../launch/contract.ts";
import type { DemoCredentials } from "../startup_data.ts";

/** The facts of a start. */
export interface StartFacts {
  /** This release's version, when known. */
  version?: string;
  /** Where this process listens (`http://host:port`). */
  url: string;
  publicUrl: string;
  portalPrefix: string;
  /** `embedded PGlite in <dir>/pglite` or `PostgreSQL (DATABASE_URL)`. */
  database: string;
  /** Where /metrics is served (METRICS_PORT), or null. */
  metricsUrl: string | null;
  migrated: Migrated;
  demo: DemoCredentials | null;
}

const ONCE = "These secrets are printed only once; save them now.";

function demoCommands(f: StartFacts, demo: DemoCredentials) {
  return {
    tokenRequest: `curl -s -X POST ${f.publicUrl}/api/v1/oauth2/token -u ` +
      `'${demo.clientId}:${demo.clientSecret}' -d grant_type=client_credentials`,
    mockCrm: `PORTAL_API_KEY=${demo.apiKey} PORTAL_CALLBACK_SECRET=${demo.callbackSecret} ` +
      `PORTAL_URL=${f.publicUrl}${f.portalPrefix}${
        demo.demoUrl.endsWith(":8001/") ? "" : ` DEMO_PORT=${new URL(demo.demoUrl).port}`
      } deno task demo`,
    callbacks: demo.callbacks
      ? `the demo app calls the mock CRM back at ${demo.demoUrl}callbacks`
      : "off for the demo (localhost is a private address); to see them, start with " +
        "CALLBACK_ALLOW_PRIVATE_NETWORKS=true and set the demo app's callback URL (docs/crm.md)",
  };
}

/** The fields of the start record (its `msg` is `listening`). */
export function startRecord(f: StartFacts): Record<string, unknown> {
  const demo = f.demo;
  return {
    url: f.url,
    ...(f.version ? { version: f.version } : {}),
    publicUrl: f.publicUrl,
    database: f.database,
    launch: `POST ${f.publicUrl}${f.portalPrefix}${
      LAUNCH_ROUTE.replace(":app_name", "<app_name>")
    }`,
    token: `POST ${f.publicUrl}/api/v1/oauth2/token`,
    adminApi: `${f.publicUrl}/api/v1/admin`,
    health: [`${f.publicUrl}/healthz`, `${f.publicUrl}/readyz`],
    ...(f.metricsUrl ? { metrics: f.metricsUrl } : {}),
    migrations: f.migrated.migrations,
    functions: f.migrated.functions,
    ...(demo
      ? {
        demo: {
          note: `First start: demo data created. ${ONCE}`,
          ...demo,
          ...demoCommands(f, demo),
        },
      }
      : {}),
  };
}

/** The same facts as a banner for a terminal. */
export function startBanner(f: StartFacts): string {
  const r = startRecord(f) as {
    launch: string;
    token: string;
    adminApi: string;
    health: string[];
  };
  const lines = [
    `Portal Launcher ${f.version ? `${f.version} ` : ""}listening on ${f.url} ` +
    `(public URL ${f.publicUrl})`,
    `  database:   ${f.database}`,
    `  launch:     ${r.launch}`,
    `  token:      ${r.token}`,
    `  admin API:  ${r.adminApi}`,
    `  health:     ${r.health.join(", ")}`,
  ];
  if (f.metricsUrl) lines.push(`  metrics:    ${f.metricsUrl}`);
  const { migrations, functions } = f.migrated;
  if (migrations.length) lines.push(`  migrations applied: ${migrations.join(", ")}`);
  if (functions.length) lines.push(`  functions applied: ${functions.join(", ")}`);
  const demo = f.demo;
  if (demo) {
    const commands = demoCommands(f, demo);
    lines.push(
      "",
      `First start: demo data created. ${ONCE}`,
      `  admin login:   ${demo.adminEmail} / ${demo.adminPassword}`,
      `  demo app:      ${demo.appName}   API key: ${demo.apiKey}`,
      `  launch URL:    ${demo.launchUrl}`,
      `  try a launch:  ${demo.tryLaunchUrl} (signed in as the admin)`,
      `  API client:    client_id=${demo.clientId}  client_secret=${demo.clientSecret}`,
      "  get a token:",
      `    ${commands.tokenRequest}`,
      `  mock CRM with <portal-launcher> (another terminal), then open ${demo.demoUrl}:`,
      `    ${commands.mockCrm}`,
      `  callbacks: ${commands.callbacks}`,
    );
  }
  return lines.join("\n");
}
