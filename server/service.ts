/** Starts the service's parts: database, migrations, secrets, auth service, bootstrap data. */
import type { Hono } from "hono";
import { connect, type Database } from "../db/mod.ts";
import { migrate } from "../db/migrate.ts";
import { buildApp } from "./app.ts";
import {
  createDemoData,
  type DemoCredentials,
  ensureAdmin,
  ensureBootstrapClient,
} from "./startup_data.ts";
import type { Config } from "./config.ts";
import { createSecretBox } from "./crypto/secret_box.ts";
import type { Deps } from "./deps.ts";
import type { AppEnv } from "./http/env.ts";
import { log, setLogLevel } from "./log.ts";
import { AuthService } from "./oauth/auth_service.ts";
import { startHousekeeping } from "./housekeeping.ts";
import { resealSecrets } from "./auth/reseal.ts";
import { FailureLimiter } from "./http/failure_rate.ts";
import { resolveSecretKey } from "./auth/secret_key.ts";

/** A started service. */
export interface Service {
  app: Hono<AppEnv>;
  deps: Deps;
  db: Database;
  /** Migrations applied by this start. */
  migrated: string[];
  /** Set when this start created demo data (embedded mode, first start, nothing configured). */
  demo: DemoCredentials | null;
  close(): Promise<void>;
}

/** Options for tests and benchmarks. */
export interface StartOptions {
  /** Use this database instead of connecting from the config. */
  db?: Database;
  /** Create demo data on a first start in embedded mode (default true). */
  demoData?: boolean;
}

/** Connects, migrates, bootstraps and builds the app. */
export async function startService(config: Config, options: StartOptions = {}): Promise<Service> {
  setLogLevel(config.logLevel);
  const db = options.db ??
    await connect({
      databaseUrl: config.databaseUrl,
      dataDir: config.dataDir,
      max: config.databasePoolSize,
      onNotice: (message) => log.info("database notice", { message }),
    });
  try {
    const migrated = await migrate(db.sql);
    const secrets = await createSecretBox(
      await resolveSecretKey(config.secretKey, config.dataDir),
      config.secretKeyPrevious,
    );
    const resealed = await resealSecrets(db.sql, secrets);
    if (resealed) log.info("stored secrets resealed with the current SECRET_KEY", { resealed });
    const auth = new AuthService(db.sql, {
      tokenTtlSeconds: config.tokenTtlSeconds,
      cacheSeconds: config.tokenCacheSeconds,
    });
    const deps: Deps = {
      config,
      sql: db.sql,
      secrets,
      auth,
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
    const stopHousekeeping = startHousekeeping(db.sql, config);
    return {
      app: buildApp(deps),
      deps,
      db,
      migrated,
      demo,
      close: () => {
        stopHousekeeping();
        return db.close();
      },
    };
  } catch (err) {
    if (!options.db) await db.close();
    throw err;
  }
}
