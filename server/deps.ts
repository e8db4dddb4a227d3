/** What the routes and domain modules are built from. */
import type { Sql } from "../db/mod.ts";
import type { Config } from "./config.ts";
import type { SecretBox } from "./crypto/secret_box.ts";
import type { AuthService } from "./oauth/auth_service.ts";
import type { FailureLimiter } from "./http/failure_rate.ts";
import type { DeliveryWorker } from "./callbacks/worker.ts";
import type { MailWorker } from "./mail/mailer.ts";
import type { AppCache } from "./launch/app_cache.ts";
import type { LaunchGate } from "./launch/launch_gate.ts";
import type { SignalRelay } from "./remote/relay.ts";

/**
 * The service's dependencies, created once at startup (or per test). Everything a service keeps
 * between requests lives here, so two services in one process share nothing.
 */
export interface Deps {
  config: Config;
  sql: Sql;
  secrets: SecretBox;
  auth: AuthService;
  /** Failures per client address, for the 429 of too many failed launches or OAuth requests (token, revoke, introspect). */
  failures: { launch: FailureLimiter; token: FailureLimiter };
  /**
   * This service's callback delivery worker (also delivers the test ping in its request); woken
   * after a commit that wrote callback events (server/transaction.ts).
   */
  deliveries: DeliveryWorker;
  /** This service's launch apps by name (emptied after a commit that changed apps). */
  apps: AppCache;
  /** How many launches this process works on at once (server/launch/launch_gate.ts). */
  launchGate: LaunchGate;
  /** Embedded mode: what the running-service backup needs (null on PostgreSQL). */
  embedded: { dumpDataDir: () => Promise<Blob>; secretKey: string } | null;
  /** This process's mail worker; null without SMTP_URL (then no mail is sent). */
  mail: MailWorker | null;
  /** Remote support: the signaling relay and the key invitation codes are hashed with. */
  remote: { relay: SignalRelay; codeKey: string };
}
