/**
 * Databases for tests that run the service as processes: a migrated embedded data folder (a copy
 * of the run's migrated template, test/helpers/db.ts) or a fresh
 * PostgreSQL database; and callback data seeded in process before the processes start.
 */
import assert from "node:assert/strict";
import { type Backend, pgliteDataDir } from "../../helpers/db.ts";
import { signLaunch } from "../../helpers/launch.ts";
import { launchPayload } from "../../helpers/payload.ts";
import { uniqueId } from "../../helpers/shared.ts";
import { loadConfig } from "../../../server/config.ts";
import { startService } from "../../../server/service.ts";

/** SECRET_KEY of every prepared database. */
export const SECRET_KEY = "test-secret-key-0123456789abcdefghijklmnop";
const ADMIN = { id: "ops-admin", secret: "ops-admin-secret-0123456789abcdefghijkl" };

/** A database for service processes: `env` points a process at it. */
export interface Prepared {
  env: Record<string, string>;
  close(): Promise<void>;
}

/** A migrated database of `backend`, empty of data. */
export async function prepareDatabase(backend: Backend): Promise<Prepared> {
  if (backend.name === "postgres") {
    const db = await backend.open();
    return { env: { DATABASE_URL: db.url!, SECRET_KEY }, close: () => db.close() };
  }
  const dataDir = await pgliteDataDir("pl-ops-", { migrated: true });
  return {
    env: { DATA_DIR: dataDir, SECRET_KEY },
    close: () => Deno.remove(dataDir, { recursive: true }),
  };
}

/** An app with callbacks and what launching through it needs. */
export interface SeededApp {
  appName: string;
  apiKey: string;
  callbackSecret: string;
}

/** The form body of a launch of session `referenceId` through `app`. */
export async function launchForm(app: SeededApp, referenceId: string): Promise<URLSearchParams> {
  const agent = uniqueId("ag");
  return new URLSearchParams({
    signed_request: await signLaunch(
      launchPayload({ referenceId, contactId: uniqueId("C") }, {
        id: agent,
        email: `${agent}@example.com`,
      }),
      app.apiKey,
    ),
  });
}

/**
 * In process, before any process starts: creates an app calling `crmUrl` back and launches
 * sessions `references` through it (each emits its callback events).
 */
export async function seedCallbacks(
  prepared: Prepared,
  crmUrl: string,
  references: string[],
): Promise<SeededApp> {
  const svc = await startService(
    loadConfig({
      ...prepared.env,
      CALLBACK_ALLOW_PRIVATE_NETWORKS: "true",
      LOG_LEVEL: "silent",
      BOOTSTRAP_CLIENT_ID: ADMIN.id,
      BOOTSTRAP_CLIENT_SECRET: ADMIN.secret,
    }),
    { demoData: false, deliveryWorker: false },
  );
  try {
    const request = (path: string, init?: RequestInit) =>
      svc.app.request(`http://portal.test${path}`, init);
    const token = await request("/api/v1/oauth2/token", {
      method: "POST",
      body: new URLSearchParams({
        grant_type: "client_credentials",
        client_id: ADMIN.id,
        client_secret: ADMIN.secret,
      }),
    });
    const { access_token } = await token.json();
    const created = await request("/api/v1/admin/apps", {
      method: "POST",
      headers: { Authorization: `Bearer ${access_token}`, "Content-Type": "application/json" },
      body: JSON.stringify({
        appName: uniqueId("ops"),
        name: "Ops",
        authType: "signed_request",
        callbackUrl: `${crmUrl}/hooks/{referenceId}`,
      }),
    });
    const app = await created.json();
    assert.equal(created.status, 201, JSON.stringify(app));
    for (const reference of references) {
      const launched = await request(`/portal/api/auth/app/${app.appName}`, {
        method: "POST",
        headers: { Accept: "application/json" },
        body: await launchForm(app, reference),
      });
      assert.equal(launched.status, 200, await launched.text());
    }
    return app;
  } finally {
    await svc.close();
  }
}
