/** Starts the service on a test database, in process, for app.request() tests. */
import { type Service, type StartOptions, startService } from "../../server/service.ts";
import { loadConfig } from "../../server/config.ts";
import { type Backend, pglite, type TestDatabase } from "./db.ts";
import { sharedFixture } from "./shared.ts";

/** Credentials of the admin client every test service has. */
export const ADMIN_CLIENT = {
  id: "test-admin",
  secret: "test-admin-secret-0123456789abcdefghijkl",
};

/** A service under test with helpers. */
export interface TestService extends Service {
  db: TestDatabase;
  /** Sends a request to the app (no network). */
  request(path: string, init?: RequestInit): Promise<Response>;
  /** Gets a token for the bootstrap admin client (all scopes, or the ones asked for). */
  adminToken(scope?: string): Promise<string>;
  /** JSON request with a bearer token. */
  api(method: string, path: string, token: string, body?: unknown): Promise<Response>;
}

/**
 * Starts a service on a fresh database of `backend`; env overrides the test config. The database
 * comes migrated (embedded: a copy of the run's migrated template, which spares each start its
 * migrations) unless `dbOptions.migrated` is false; the service's start checks it either way.
 */
export async function startTestService(
  backend: Backend,
  env: Record<string, string> = {},
  dbOptions: Parameters<Backend["open"]>[0] = {},
  serviceOptions: Omit<StartOptions, "db" | "demoData"> = {},
): Promise<TestService> {
  const db = await backend.open({ migrated: true, ...dbOptions });
  const config = loadConfig({
    DATA_DIR: db.dataDir,
    SECRET_KEY: "test-secret-key-0123456789abcdefghijklmnop",
    LOG_LEVEL: "silent",
    PUBLIC_URL: "http://portal.test",
    // In-process requests all come from one "address": only abuse tests lower these limits.
    LAUNCH_FAILURES_PER_MINUTE: "1000000",
    TOKEN_FAILURES_PER_MINUTE: "1000000",
    BOOTSTRAP_CLIENT_ID: ADMIN_CLIENT.id,
    BOOTSTRAP_CLIENT_SECRET: ADMIN_CLIENT.secret,
    ...(db.url ? { DATABASE_URL: db.url } : {}),
    ...env,
  });
  let service: Service;
  try {
    service = await startService(config, { ...serviceOptions, db, demoData: false });
  } catch (err) {
    await db.close();
    throw err;
  }
  const request = async (path: string, init?: RequestInit) =>
    await service.app.request(`http://portal.test${path}`, init);
  return {
    ...service,
    db,
    close: () => service.close(),
    request,
    async adminToken(scope?: string) {
      const body = new URLSearchParams({
        grant_type: "client_credentials",
        client_id: ADMIN_CLIENT.id,
        client_secret: ADMIN_CLIENT.secret,
        ...(scope ? { scope } : {}),
      });
      const res = await request("/api/v1/oauth2/token", { method: "POST", body });
      if (res.status !== 200) throw new Error(`token: ${res.status} ${await res.text()}`);
      return (await res.json()).access_token;
    },
    async api(method, path, token, body) {
      return await request(path, {
        method,
        headers: {
          Authorization: `Bearer ${token}`,
          ...(body !== undefined ? { "Content-Type": "application/json" } : {}),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    },
  };
}

/**
 * The file's shared embedded service whose failed launches and OAuth requests are limited to
 * `limit` a minute per address, behind a trusted proxy (X-Forwarded-For names the client).
 */
export function failureLimitedService(limit: number): () => Promise<TestService> {
  return sharedFixture(
    () =>
      startTestService(pglite, {
        LAUNCH_FAILURES_PER_MINUTE: String(limit),
        TOKEN_FAILURES_PER_MINUTE: String(limit),
        TRUST_PROXY: "true",
      }),
    (svc: TestService) => svc.close(),
  );
}
