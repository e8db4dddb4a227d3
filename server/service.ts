/** Starts the service's parts: database, migrations, secrets, auth service, bootstrap data. */
import type { Hono } from "hono";
import { connect, type Database } from "../db/mod.ts";
import { type DataDirLock, lockDataDir } from "../db/data_dir_lock.ts";
import { migrate, type Migrated } from "../db/migrate.ts";
import {
  describePending,
  recordRelease,
  schemaIsCurrent,
  schemaStatus,
} from "../db/schema_status.ts";
import { buildApp } from "./app.ts";
import {
  createDemoData,
  type DemoCredentials,
  ensureAdmin,
  ensureBootstrapClient,
} from "./startup_data.ts";
import { type Config, databaseOptions, VERSION } from "./config.ts";
import { createSecretBox } from "./crypto/secret_box.ts";
import type { Deps } from "./deps.ts";
import type { AppEnv } from "./http/env.ts";
import { log, setLogLevel } from "./log.ts";
import { AuthService } from "./oauth/auth_service.ts";
import { startHousekeeping } from "./housekeeping.ts";
import { resealSecrets } from "./auth/reseal.ts";
import { FailureLimiter } from "./http/failure_rate.ts";
import { LaunchGate } from "./launch/launch_gate.ts";
import { resolveSecretKey } from "./auth/secret_key.ts";
import { DeliveryWorker } from "./callbacks/worker.ts";
import { MailWorker } from "./mail/mailer.ts";
import { TokenSource } from "./callbacks/oauth_client.ts";
import { CallbackHttpClient } from "./callbacks/http_client.ts";
import type { Resolver } from "./callbacks/destination.ts";
import { AppCache } from "./launch/app_cache.ts";
import { Drain } from "./ops/drain.ts";
import { instrument } from "../db/instrument.ts";
import { observeService } from "./observability/instruments.ts";
import { logDatabaseNotice } from "./observability/notices.ts";
import { SignalRelay } from "./remote/relay.ts";
import { hmacBase64 } from "./crypto/hmac.ts";

/** A started service. */
export interface Service {
  app: Hono<AppEnv>;
  deps: Deps;
  db: Database;
  /** Migrations and function files applied by this start. */
  migrated: Migrated;
  /** Set when this start created demo data (embedded mode, first start, nothing configured). */
  demo: DemoCredentials | null;
  /** The embedded data directory's lock (null on PostgreSQL or a given database). */
  dataDirLock: DataDirLock | null;
  /** The shutdown's draining state (server/ops/shutdown.ts sets it; the app reads it). */
  drain: Drain;
  close(): Promise<void>;
}

/** Options for tests and benchmarks. */
export interface StartOptions {
  /** Use this database instead of connecting from the config. */
  db?: Database;
  /** Create demo data on a first start in embedded mode (default true). */
  demoData?: boolean;
  /** Run this process's callback delivery worker (default true). */
  deliveryWorker?: boolean;
  /** Lanes the delivery worker adds during a backlog (default EXTRA_BATCHES; serve's processes 0). */
  extraDeliveryBatches?: number;
  /** Host-name resolution of callback destinations (tests of the private-network rule). */
  resolve?: Resolver;
}

/** Raised at start when the schema lacks what this release needs and the start may not migrate. */
export class SchemaNotCurrent extends Error {
  constructor(message: string) {
    super(message);
    this.name = "SchemaNotCurrent";
  }
}

/**
 * Brings the schema to this release (MIGRATE_ON_START) or checks that it is (never runs
 * half-migrated). A database a newer release migrated is left as it is: a rolling upgrade or a
 * rollback must not put older stored functions back under the newer release's instances.
 */
async function prepareSchema(db: Database, config: Config): Promise<Migrated> {
  const status = await schemaStatus(db.sql, VERSION);
  const none: Migrated = { migrations: [], functions: [] };
  if (status.newerRelease && schemaIsCurrent(status)) {
    log.warn("the database was migrated by a newer release; this one applies nothing", {
      version: VERSION,
      newerRelease: status.newerRelease,
    });
    return none;
  }
  if (config.migrateOnStart && !status.newerRelease) {
    // Through DATABASE_DIRECT_URL when set: a pooler in transaction mode sits in front of db.sql.
    const migrated = await migrate(db.direct);
    await recordRelease(db.direct, VERSION);
    return migrated;
  }
  if (schemaIsCurrent(status)) return none;
  const where = db.mode === "embedded" ? `DATA_DIR=${config.dataDir}` : "DATABASE_URL";
  throw new SchemaNotCurrent(
    status.newerRelease
      ? `The database was migrated by release ${status.newerRelease}, which lacks migrations of ` +
        `this release ${VERSION}: ${describePending(status)}. Deploy a release that has them.`
      : `The database schema is behind Portal Launcher ${VERSION}: ${describePending(status)}. ` +
        `MIGRATE_ON_START is false: run \`deno task migrate\` (in a release: ` +
        `\`bin/portal-launcher migrate\`) with the same ${where}, then start again.`,
  );
}

/** Connects, migrates, bootstraps and builds the app. */
export async function startService(config: Config, options: StartOptions = {}): Promise<Service> {
  setLogLevel(config.logLevel);
  // One process per embedded data directory (db/data_dir_lock.ts).
  const dataDirLock = !options.db && !config.databaseUrl ? await lockDataDir(config.dataDir) : null;
  const db = options.db ??
    await connect({
      ...databaseOptions(config),
      onNotice: logDatabaseNotice,
    });
  // Query spans and pool use (db/instrument.ts): every query of this service goes through it.
  db.sql = instrument(db.sql);
  try {
    const migrated = await prepareSchema(db, config);
    const secretKey = await resolveSecretKey(config.secretKey, config.dataDir);
    const secrets = await createSecretBox(secretKey, config.secretKeyPrevious);
    const resealed = await resealSecrets(db.sql, secrets);
    if (resealed) log.info("stored secrets resealed with the current SECRET_KEY", { resealed });
    const auth = new AuthService(db.sql, {
      tokenTtlSeconds: config.tokenTtlSeconds,
      cacheSeconds: config.tokenCacheSeconds,
      issueWaitMs: config.databaseAcquireTimeoutMs,
    });
    const settings = {
      timeoutMs: config.callbackTimeoutMs,
      retryBaseMs: config.callbackRetryBaseMs,
      maxAttempts: config.callbackMaxAttempts,
      allowPrivate: config.callbackAllowPrivateNetworks,
    };
    // Deliveries and their token requests connect to the addresses they checked, unless a proxy
    // is set for their scheme (then fetch sends them through it).
    const http = new CallbackHttpClient({ proxied: config.callbackProxied });
    const tokens = new TokenSource({
      timeoutMs: config.callbackTimeoutMs,
      allowPrivate: config.callbackAllowPrivateNetworks,
      resolve: options.resolve,
      http,
    });
    const deliveries = new DeliveryWorker(
      { sql: db.sql, secrets, tokens, settings, resolve: options.resolve, http },
      { pollMs: config.callbackPollMs, extraBatches: options.extraDeliveryBatches },
    );
    const mail = config.smtpUrl
      ? await MailWorker.create(db.sql, {
        smtpUrl: config.smtpUrl,
        from: config.mailFrom,
        retryBaseMs: config.mailRetryBaseMs,
        timeoutMs: config.callbackTimeoutMs,
      })
      : null;
    if (!mail) {
      log.warn("SMTP_URL is not set: no e-mail is sent, so the lost-password function is off");
    }
    // The connections the pool may open: the embedded database has one.
    const poolSize = db.mode === "embedded" ? 1 : config.databasePoolSize;
    const deps: Deps = {
      config,
      sql: db.sql,
      secrets,
      auth,
      deliveries,
      apps: new AppCache(db.sql),
      mail,
      embedded: db.dumpDataDir ? { dumpDataDir: db.dumpDataDir, secretKey } : null,
      remote: {
        relay: new SignalRelay(db.sql, db.mode === "postgres" ? db.direct : null),
        codeKey: await hmacBase64("remote-codes v1", secretKey),
      },
      launchGate: LaunchGate.forPool(poolSize, config.databaseAcquireTimeoutMs),
      failures: {
        launch: new FailureLimiter(config.launchFailuresPerMinute, 60_000),
        token: new FailureLimiter(config.tokenFailuresPerMinute, 60_000),
      },
    };
    if (config.adminEmail && config.adminPassword) {
      await ensureAdmin(db.sql, config.adminEmail, config.adminPassword);
    }
    if (config.bootstrapClientId && config.bootstrapClientSecret) {
      await ensureBootstrapClient(db.sql, config.bootstrapClientId, config.bootstrapClientSecret);
    }
    const nothingConfigured = !config.adminEmail && !config.bootstrapClientId;
    const demo = db.mode === "embedded" && nothingConfigured && options.demoData !== false
      ? await createDemoData(deps)
      : null;
    await deps.remote.relay.start();
    const stopHousekeeping = startHousekeeping(db.sql, config);
    if (options.deliveryWorker !== false) deliveries.start();
    mail?.start();
    const drain = new Drain();
    const unobserve = observeService({
      sql: db.sql,
      poolSize,
      launchGate: deps.launchGate,
      draining: () => drain.draining,
    });
    return {
      app: buildApp(deps, drain),
      drain,
      deps,
      db,
      migrated,
      demo,
      dataDirLock,
      close: async () => {
        unobserve();
        stopHousekeeping();
        await deps.remote.relay.stop();
        await deliveries.stop();
        http.close();
        await mail?.stop();
        await db.close();
        dataDirLock?.release();
      },
    };
  } catch (err) {
    if (!options.db) await db.close();
    dataDirLock?.release();
    throw err;
  }
}
