/** Service configuration: read from environment variables, validated once at startup. */
import { z } from "zod";
import type { ConnectOptions } from "../db/mod.ts";
import "./zod_setup.ts";
import { type RemoteConfig, remoteConfig, remoteEnvShape } from "./remote/remote_config.ts";
import denoConfig from "../deno.json" with { type: "json" };

/** This release's version (deno.json `version`): shown at /healthz and in the start log. */
export const VERSION: string = denoConfig.version;

const LOG_LEVELS = ["debug", "info", "warn", "error", "silent"] as const;

/** The validated configuration every module receives. */
export interface Config {
  /** This release's version (VERSION), shown at /healthz. */
  version: string;
  port: number;
  host: string;
  /** Absolute origin (scheme, host, port; no trailing slash) used in redirects, templates and CORS. */
  publicUrl: string;
  /** Path prefix of the portal application, e.g. `/portal`. */
  portalPrefix: string;
  /** `undefined` means the embedded PGlite database under `dataDir`. */
  databaseUrl: string | undefined;
  /** Connections to PostgreSQL per process (the embedded database always uses one). */
  databasePoolSize: number;
  /** How long opening one PostgreSQL connection may take. */
  databaseConnectTimeoutMs: number;
  /** PostgreSQL's statement_timeout for the service's connections (0: none). */
  databaseStatementTimeoutMs: number;
  /** How long a query or transaction may wait for a pool connection before a 503. */
  databaseAcquireTimeoutMs: number;
  /** The readiness probe's (`/readyz`) own timeout. */
  databaseProbeTimeoutMs: number;
  /** false: no prepared statements (PgBouncer in transaction mode); undefined: the URL decides. */
  databasePrepare: boolean | undefined;
  /** A direct PostgreSQL URL (not through a pooler) for work that needs a session. */
  databaseDirectUrl: string | undefined;
  dataDir: string;
  /** Encrypts stored API keys and consumer secrets; `undefined` means "generate into dataDir". */
  secretKey: string | undefined;
  /** The key before a SECRET_KEY rotation: its values are read and resealed at start. */
  secretKeyPrevious: string | undefined;
  adminEmail: string | undefined;
  adminPassword: string | undefined;
  bootstrapClientId: string | undefined;
  bootstrapClientSecret: string | undefined;
  tokenTtlSeconds: number;
  tokenCacheSeconds: number;
  trustProxy: boolean;
  /** With trustProxy: how many proxies stand in front (each appends one X-Forwarded-For entry). */
  trustedProxyHops: number;
  /**
   * Hosts (`host` or `host:port`, lowercase) a trusted proxy may name in X-Forwarded-Host for
   * same-request uses; always holds PUBLIC_URL's host. Nothing sent away uses them.
   */
  publicHosts: string[];
  logLevel: typeof LOG_LEVELS[number];
  /** Failed launches per client address per minute before the address gets 429. */
  launchFailuresPerMinute: number;
  /** Failed token, revocation and introspection requests per address per minute before 429. */
  tokenFailuresPerMinute: number;
  /** Launch-log records are deleted after this many days. */
  launchLogRetentionDays: number;
  /** Their personal data (payload, client address, user agent) is erased after this many. */
  launchLogPayloadDays: number;
  /** Callbacks and token requests may go to http:// and private addresses (tests, demo). */
  callbackAllowPrivateNetworks: boolean;
  /** Timeout of one callback or token request. */
  callbackTimeoutMs: number;
  /** First retry delay of a failed callback; doubled per attempt, with jitter. */
  callbackRetryBaseMs: number;
  /** Attempts per event before it is failed. */
  callbackMaxAttempts: number;
  /** How often an idle delivery worker looks for events other processes emitted. */
  callbackPollMs: number;
  /**
   * The URL schemes a proxy is set for (HTTPS_PROXY for `https:`, HTTP_PROXY for `http:`,
   * ALL_PROXY for both; either case): callbacks to them go through `fetch`, which sends them
   * through it, not through the client that connects to the addresses checked.
   */
  callbackProxied: ("http:" | "https:")[];
  /** SMTP server of outgoing mail (`smtp://` or `smtps://`); unset: no mail is sent. */
  smtpUrl: string | undefined;
  /** The From of outgoing mail. */
  mailFrom: string;
  /** First retry delay of a message the SMTP server did not take; doubled per attempt. */
  mailRetryBaseMs: number;
  /** How long a password-reset link works. */
  passwordResetTtlMinutes: number;
  /** After SIGTERM/SIGINT: how long /readyz says `draining` while the listener still accepts. */
  shutdownDrainMs: number;
  /** After SIGTERM/SIGINT: the process has exited within this. */
  shutdownTimeoutMs: number;
  /** Apply pending migrations at start; false: refuse to start unless the schema is current. */
  migrateOnStart: boolean;
  /** Port of GET /metrics (Prometheus text format); null: not served. */
  metricsPort: number | null;
  /** Address the metrics listener binds (loopback by default). */
  metricsHost: string;
  /** Remote support: invitations, ICE servers (server/remote/remote_config.ts). */
  remote: RemoteConfig;
  /** The mock CRM's port (`deno task demo`): a first start lets the demo app be framed there. */
  demoPort: number;
}

/** Raised when the environment holds an invalid value; the message names every bad variable. */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join("\n")}`);
    this.name = "ConfigError";
  }
}

/** A lowercase `host` or `host:port` (a name, an IPv4 address or a bracketed IPv6 address). */
export const HOST_PORT =
  /^(?:[a-z0-9-]+\.)*[a-z0-9-]+(?::\d{1,5})?$|^\[[0-9a-f:.]+\](?::\d{1,5})?$/;

const optionalText = z.string().trim().optional().transform((v) => (v ? v : undefined));

function boolText(defaultValue: boolean) {
  return z.string().trim().toLowerCase().optional().transform((v, ctx) => {
    if (v === undefined || v === "") return defaultValue;
    if (["1", "true", "yes", "on"].includes(v)) return true;
    if (["0", "false", "no", "off"].includes(v)) return false;
    ctx.addIssue({ code: "custom", message: "expected true or false (also 1/0, yes/no, on/off)" });
    return z.NEVER;
  });
}

/** Like boolText, but undefined when unset (the URL or another default decides). */
const optionalBoolText = z.string().trim().toLowerCase().optional().transform((v, ctx) => {
  if (v === undefined || v === "") return undefined;
  if (["1", "true", "yes", "on"].includes(v)) return true;
  if (["0", "false", "no", "off"].includes(v)) return false;
  ctx.addIssue({ code: "custom", message: "expected true or false (also 1/0, yes/no, on/off)" });
  return z.NEVER;
});

function intText(defaultValue: number, min: number, max: number) {
  return z.string().trim().optional().transform((v, ctx) => {
    if (v === undefined || v === "") return defaultValue;
    if (!/^\d+$/.test(v) || Number(v) < min || Number(v) > max) {
      ctx.addIssue({ code: "custom", message: `expected a whole number from ${min} to ${max}` });
      return z.NEVER;
    }
    return Number(v);
  });
}

const envSchema = z.object({
  ...remoteEnvShape,
  PORT: intText(8000, 0, 65535),
  HOST: z.string().trim().optional().transform((v) => v || "127.0.0.1"),
  PUBLIC_URL: optionalText.pipe(
    z.string().optional().refine((v) => v === undefined || isOrigin(v), {
      message: "expected an absolute http(s) origin such as https://portal.example.com " +
        "(scheme, host and optional port; no path, query or fragment)",
    }),
  ),
  PORTAL_PREFIX: z.string().trim().optional().transform((v) => v || "/portal").refine(
    (v) => /^(\/[A-Za-z0-9._~-]+)+$/.test(v),
    { message: "expected a path such as /portal (leading slash, no trailing slash)" },
  ),
  DATABASE_URL: optionalText.pipe(
    z.string().optional().refine(
      (v) => v === undefined || /^postgres(ql)?:\/\//.test(v),
      { message: "expected a postgres:// or postgresql:// connection URL" },
    ),
  ),
  DATABASE_POOL_SIZE: intText(10, 1, 200),
  DATABASE_CONNECT_TIMEOUT_MS: intText(5_000, 100, 120_000),
  DATABASE_STATEMENT_TIMEOUT_MS: intText(15_000, 0, 86_400_000),
  DATABASE_ACQUIRE_TIMEOUT_MS: intText(5_000, 100, 120_000),
  DATABASE_PROBE_TIMEOUT_MS: intText(1_000, 100, 30_000),
  DATABASE_PREPARE: optionalBoolText,
  DATABASE_DIRECT_URL: optionalText.pipe(
    z.string().optional().refine(
      (v) => v === undefined || /^postgres(ql)?:\/\//.test(v),
      { message: "expected a postgres:// or postgresql:// connection URL" },
    ),
  ),
  DATA_DIR: z.string().trim().optional().transform((v) => v || "./.data"),
  SECRET_KEY: optionalText.pipe(
    z.string().min(32, "expected at least 32 characters (e.g. `openssl rand -base64 32`)")
      .optional(),
  ),
  SECRET_KEY_PREVIOUS: optionalText.pipe(
    z.string().min(32, "expected at least 32 characters (the SECRET_KEY before the rotation)")
      .optional(),
  ),
  ADMIN_EMAIL: optionalText.pipe(
    z.email("expected an e-mail address such as admin@example.com").optional(),
  ),
  ADMIN_PASSWORD: optionalText.pipe(
    z.string().min(12, "expected at least 12 characters").optional(),
  ),
  BOOTSTRAP_CLIENT_ID: optionalText.pipe(
    z.string().regex(/^[A-Za-z0-9._~-]{1,128}$/, "expected 1-128 of A-Z a-z 0-9 . _ ~ -")
      .optional(),
  ),
  BOOTSTRAP_CLIENT_SECRET: optionalText.pipe(
    z.string().min(32, "expected at least 32 characters (it is hashed with a fast hash)")
      .optional(),
  ),
  TOKEN_TTL_SECONDS: intText(3600, 60, 86400),
  TOKEN_CACHE_SECONDS: intText(30, 0, 300),
  TRUST_PROXY: boolText(false),
  TRUSTED_PROXY_HOPS: intText(1, 1, 10),
  PUBLIC_HOSTS: z.string().optional().transform((v, ctx) => {
    const hosts = (v ?? "").split(",").map((h) => h.trim().toLowerCase()).filter(Boolean);
    const bad = hosts.filter((h) => !HOST_PORT.test(h));
    if (bad.length) {
      ctx.addIssue({
        code: "custom",
        message: `expected comma-separated host or host:port values (no scheme, no path): ${
          bad.join(", ")
        }`,
      });
      return z.NEVER;
    }
    return hosts;
  }),
  LOG_LEVEL: z.string().trim().toLowerCase().optional().transform((v) => v || "info").pipe(
    z.enum(LOG_LEVELS, { message: `expected one of ${LOG_LEVELS.join(", ")}` }),
  ),
  LAUNCH_FAILURES_PER_MINUTE: intText(60, 1, 1_000_000),
  TOKEN_FAILURES_PER_MINUTE: intText(30, 1, 1_000_000),
  LAUNCH_LOG_RETENTION_DAYS: intText(90, 1, 3650),
  LAUNCH_LOG_PAYLOAD_DAYS: intText(30, 1, 3650),
  CALLBACK_ALLOW_PRIVATE_NETWORKS: boolText(false),
  CALLBACK_TIMEOUT_MS: intText(10_000, 100, 120_000),
  CALLBACK_RETRY_BASE_MS: intText(10_000, 10, 3_600_000),
  CALLBACK_MAX_ATTEMPTS: intText(12, 1, 50),
  CALLBACK_POLL_MS: intText(1_000, 10, 60_000),
  SMTP_URL: optionalText.pipe(
    z.string().optional().refine((v) => v === undefined || /^smtps?:\/\/[^\s/]+/.test(v), {
      message: "expected smtp://[user:pass@]host[:port] or smtps://... (TLS from the start)",
    }),
  ),
  MAIL_FROM: optionalText,
  MAIL_RETRY_BASE_MS: intText(15_000, 10, 3_600_000),
  PASSWORD_RESET_TTL_MINUTES: intText(30, 1, 1440),
  SHUTDOWN_DRAIN_MS: intText(5_000, 0, 300_000),
  SHUTDOWN_TIMEOUT_MS: intText(15_000, 1_000, 600_000),
  MIGRATE_ON_START: boolText(true),
  METRICS_PORT: optionalText.pipe(
    z.string().optional().transform((v, ctx) => {
      if (v === undefined) return null;
      if (/^\d+$/.test(v) && Number(v) >= 1 && Number(v) <= 65535) return Number(v);
      ctx.addIssue({ code: "custom", message: "expected a port from 1 to 65535 (unset: off)" });
      return z.NEVER;
    }),
  ),
  METRICS_HOST: z.string().trim().optional().transform((v) => v || "127.0.0.1"),
  DEMO_PORT: intText(8001, 1, 65535),
});

function isOrigin(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === "http:" || url.protocol === "https:") &&
      url.origin === value.replace(/\/$/, "");
  } catch {
    return false;
  }
}

/** The database options of `config` for db/mod.ts connect() (the pool size included). */
export function databaseOptions(config: Config): ConnectOptions {
  return {
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    max: config.databasePoolSize,
    connectTimeoutMs: config.databaseConnectTimeoutMs,
    statementTimeoutMs: config.databaseStatementTimeoutMs,
    acquireTimeoutMs: config.databaseAcquireTimeoutMs,
    prepare: config.databasePrepare,
    directUrl: config.databaseDirectUrl,
  };
}

/** The schemes whose requests Deno's `fetch` sends through a proxy (its environment variables). */
function proxiedSchemes(env: Record<string, string | undefined>): ("http:" | "https:")[] {
  const set = (name: string) => Boolean(env[name] || env[name.toLowerCase()]);
  const all = set("ALL_PROXY");
  return [
    ...(all || set("HTTP_PROXY") ? ["http:" as const] : []),
    ...(all || set("HTTPS_PROXY") ? ["https:" as const] : []),
  ];
}

/**
 * Parses the environment into a Config, or throws ConfigError naming every invalid variable.
 *
 * @example
 * ```ts
 * const config = loadConfig({ PORT: "8080", PUBLIC_URL: "https://portal.example.com" });
 * config.portalPrefix; // "/portal" (the default)
 * config.databaseUrl; // undefined: the embedded PGlite database in DATA_DIR
 * loadConfig({ PORT: "http" }); // throws ConfigError: "PORT: expected a whole number from 0 to 65535"
 * ```
 */
export function loadConfig(env: Record<string, string | undefined>): Config {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    throw new ConfigError(
      parsed.error.issues.map((issue) => `${String(issue.path[0])}: ${issue.message}`),
    );
  }
  const e = parsed.data;
  const problems: string[] = [];
  if (e.DATABASE_URL && !e.SECRET_KEY) {
    problems.push(
      "SECRET_KEY: required when DATABASE_URL is set (at least 32 characters; it encrypts " +
        "stored API keys, so keep it stable and secret)",
    );
  }
  if (Boolean(e.ADMIN_EMAIL) !== Boolean(e.ADMIN_PASSWORD)) {
    problems.push("ADMIN_EMAIL/ADMIN_PASSWORD: set both or neither");
  }
  if (Boolean(e.BOOTSTRAP_CLIENT_ID) !== Boolean(e.BOOTSTRAP_CLIENT_SECRET)) {
    problems.push("BOOTSTRAP_CLIENT_ID/BOOTSTRAP_CLIENT_SECRET: set both or neither");
  }
  if (e.LAUNCH_LOG_PAYLOAD_DAYS > e.LAUNCH_LOG_RETENTION_DAYS) {
    problems.push(
      "LAUNCH_LOG_PAYLOAD_DAYS: at most LAUNCH_LOG_RETENTION_DAYS (personal data goes first)",
    );
  }
  if (e.SHUTDOWN_DRAIN_MS >= e.SHUTDOWN_TIMEOUT_MS) {
    problems.push("SHUTDOWN_DRAIN_MS: less than SHUTDOWN_TIMEOUT_MS (the drain is part of it)");
  }
  const remote = remoteConfig(e, problems);
  if (problems.length) throw new ConfigError(problems);
  const publicUrl = (e.PUBLIC_URL ?? `http://localhost:${e.PORT}`).replace(/\/$/, "");
  return {
    version: VERSION,
    port: e.PORT,
    host: e.HOST,
    publicUrl,
    portalPrefix: e.PORTAL_PREFIX,
    databaseUrl: e.DATABASE_URL,
    databasePoolSize: e.DATABASE_POOL_SIZE,
    databaseConnectTimeoutMs: e.DATABASE_CONNECT_TIMEOUT_MS,
    databaseStatementTimeoutMs: e.DATABASE_STATEMENT_TIMEOUT_MS,
    databaseAcquireTimeoutMs: e.DATABASE_ACQUIRE_TIMEOUT_MS,
    databaseProbeTimeoutMs: e.DATABASE_PROBE_TIMEOUT_MS,
    databasePrepare: e.DATABASE_PREPARE,
    databaseDirectUrl: e.DATABASE_DIRECT_URL,
    dataDir: e.DATA_DIR,
    secretKey: e.SECRET_KEY,
    secretKeyPrevious: e.SECRET_KEY_PREVIOUS,
    adminEmail: e.ADMIN_EMAIL,
    adminPassword: e.ADMIN_PASSWORD,
    bootstrapClientId: e.BOOTSTRAP_CLIENT_ID,
    bootstrapClientSecret: e.BOOTSTRAP_CLIENT_SECRET,
    tokenTtlSeconds: e.TOKEN_TTL_SECONDS,
    tokenCacheSeconds: e.TOKEN_CACHE_SECONDS,
    trustProxy: e.TRUST_PROXY,
    trustedProxyHops: e.TRUSTED_PROXY_HOPS,
    publicHosts: [...new Set([new URL(publicUrl).host, ...e.PUBLIC_HOSTS])],
    logLevel: e.LOG_LEVEL,
    launchFailuresPerMinute: e.LAUNCH_FAILURES_PER_MINUTE,
    tokenFailuresPerMinute: e.TOKEN_FAILURES_PER_MINUTE,
    launchLogRetentionDays: e.LAUNCH_LOG_RETENTION_DAYS,
    launchLogPayloadDays: e.LAUNCH_LOG_PAYLOAD_DAYS,
    callbackAllowPrivateNetworks: e.CALLBACK_ALLOW_PRIVATE_NETWORKS,
    callbackTimeoutMs: e.CALLBACK_TIMEOUT_MS,
    callbackRetryBaseMs: e.CALLBACK_RETRY_BASE_MS,
    callbackMaxAttempts: e.CALLBACK_MAX_ATTEMPTS,
    callbackPollMs: e.CALLBACK_POLL_MS,
    callbackProxied: proxiedSchemes(env),
    smtpUrl: e.SMTP_URL,
    mailFrom: e.MAIL_FROM ??
      `Portal Launcher <no-reply@${new URL(e.PUBLIC_URL ?? "http://localhost").hostname}>`,
    mailRetryBaseMs: e.MAIL_RETRY_BASE_MS,
    passwordResetTtlMinutes: e.PASSWORD_RESET_TTL_MINUTES,
    shutdownDrainMs: e.SHUTDOWN_DRAIN_MS,
    shutdownTimeoutMs: e.SHUTDOWN_TIMEOUT_MS,
    migrateOnStart: e.MIGRATE_ON_START,
    metricsPort: e.METRICS_PORT,
    metricsHost: e.METRICS_HOST,
    remote,
    demoPort: e.DEMO_PORT,
  };
}
