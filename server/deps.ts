/** What the routes and domain modules are built from. */
import type { Sql } from "../db/mod.ts";
import type { Config } from "./config.ts";
import type { SecretBox } from "./crypto/secret_box.ts";
import type { AuthService } from "./oauth/auth_service.ts";
import type { FailureLimiter } from "./http/failure_rate.ts";
import type { DeliveryWorker } from "./callbacks/worker.ts";
import type { MailWorker } from "./mail/mailer.ts";

/** The service's dependencies, created once at startup (or per test). */
export interface Deps {
  config: Config;
  sql: Sql;
  secrets: SecretBox;
  auth: AuthService;
  /** Failures per client address, for the 429 of too many failed launches or token requests. */
  failures: { launch: FailureLimiter; token: FailureLimiter };
  /** This process's callback delivery worker (also delivers the test ping in its request). */
  deliveries: DeliveryWorker;
  /** Embedded mode: what the running-service backup needs (null on PostgreSQL). */
  embedded: { dumpDataDir: () => Promise<Blob>; secretKey: string } | null;
  /** This process's mail worker; null without SMTP_URL (then no mail is sent). */
  mail: MailWorker | null;
}
