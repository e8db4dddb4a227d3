/**
 * The callback tests' fixture: one service per backend per test file, tuned for fast retries
 * (CALLBACK_RETRY_BASE_MS 20, CALLBACK_POLL_MS 50, CALLBACK_TIMEOUT_MS 1000, 4 attempts) and
 * allowed to call 127.0.0.1; each test makes its own app pointed at its own mock CRM.
 */
import assert from "node:assert/strict";
import type { Backend } from "../../helpers/db.ts";
import { startTestService, type TestService } from "../../helpers/service.ts";
import { sharedFixture, uniqueId } from "../../helpers/shared.ts";
import { signLaunch } from "../../helpers/launch.ts";
import { type Json, launchPayload } from "../../helpers/payload.ts";
import { type CrmServer, startCrmServer, waitUntil } from "../../helpers/crm_server.ts";

/** Test service settings for callbacks. */
export const CALLBACK_ENV = {
  CALLBACK_ALLOW_PRIVATE_NETWORKS: "true",
  CALLBACK_RETRY_BASE_MS: "20",
  CALLBACK_POLL_MS: "50",
  CALLBACK_TIMEOUT_MS: "1000",
  CALLBACK_MAX_ATTEMPTS: "4",
};

/** An app with callbacks, as the admin API created it. */
export interface CallbackApp {
  appName: string;
  apiKey: string | null;
  consumerSecret: string | null;
  callbackSecret: string;
  clientId: string;
  clientSecret: string;
}

/** What a test works with. */
export interface CallbackFixture {
  svc: TestService;
  admin: string;
  /** Creates an app calling `crm` back (`{referenceId}` at /hooks/); registers its secret. */
  app(crm: CrmServer, extra?: Json): Promise<CallbackApp>;
  /** Launches a fresh agent through `app` (JSON answer), with `params` merged in. */
  launch(app: CallbackApp, params?: Json, user?: Json, raw?: Json): Promise<Json>;
  /** Waits until the event's delivery status is `status`; returns the delivery. */
  settled(eventType: string, sessionId: number, status?: string): Promise<Json>;
  /** The app's events (oldest first) as the deliveries API shows them. */
  deliveries(appName: string, query?: string): Promise<Json[]>;
}

/**
 * A test body run with the file's fixture and a fresh mock CRM, which is closed afterwards
 * whatever happens.
 */
export function withCrm(
  fixture: () => Promise<CallbackFixture>,
  body: (f: CallbackFixture, crm: CrmServer) => Promise<void>,
): () => Promise<void> {
  return async () => {
    const f = await fixture();
    const crm = startCrmServer();
    try {
      await body(f, crm);
    } finally {
      await crm.close();
    }
  };
}

/** One fixture per backend, shared by the tests of the calling file; `env` overrides settings. */
export function callbackFixtures(
  backends: Backend[],
  env: Record<string, string> = {},
): Map<Backend, () => Promise<CallbackFixture>> {
  return new Map(backends.map((backend) => [
    backend,
    sharedFixture(() => startFixture(backend, env), (f) => f.svc.close()),
  ]));
}

async function startFixture(
  backend: Backend,
  env: Record<string, string>,
): Promise<CallbackFixture> {
  const svc = await startTestService(backend, { ...CALLBACK_ENV, ...env });
  const admin = await svc.adminToken();
  const f: CallbackFixture = {
    svc,
    admin,
    async app(crm, extra = {}) {
      const res = await svc.api("POST", "/api/v1/admin/apps", admin, {
        appName: uniqueId("cb"),
        name: "Callback CRM",
        authType: "signed_request",
        callbackUrl: `${crm.url}/hooks/{referenceId}`,
        ...extra,
      });
      const body = await res.json();
      assert.equal(res.status, 201, JSON.stringify(body));
      crm.secrets.push(body.callbackSecret);
      return body;
    },
    async launch(app, params = {}, user = {}, raw) {
      const id = uniqueId("ag");
      const contact = uniqueId("C");
      const payload = raw ?? launchPayload(
        { contactId: contact, contactEmail: `${contact.toLowerCase()}@example.org`, ...params },
        { id, email: `${id}@example.com`, ...user },
      );
      const res = await svc.request(`/portal/api/auth/app/${app.appName}`, {
        method: "POST",
        headers: { Accept: "application/json" },
        body: new URLSearchParams({
          signed_request: await signLaunch(payload, app.apiKey ?? app.consumerSecret!),
        }),
      });
      const body = await res.json();
      assert.equal(res.status, 200, JSON.stringify(body));
      return body;
    },
    async settled(eventType, sessionId, status = "delivered") {
      return await waitUntil(async () => {
        const [row] = await svc.db.sql`
          select id, status from callback_events
          where session_id = ${sessionId} and type = ${eventType} order by id desc limit 1`;
        return row?.status === status ? row : undefined;
      }, `${eventType} of session ${sessionId} to be ${status}`);
    },
    async deliveries(appName, query = "") {
      const res = await svc.api(
        "GET",
        `/api/v1/deliveries?app=${appName}&limit=200${query}`,
        admin,
      );
      const body = await res.json();
      assert.equal(res.status, 200, JSON.stringify(body));
      return body.items.reverse();
    },
  };
  return f;
}

export { type CrmServer, startCrmServer, waitUntil };
