/**
 * The launch tests' shared fixture: one service per backend per test file, with the app `crm`
 * (framed by https://host.test), the custom field `priority`, a category and a published path.
 */
import type { Backend } from "../../helpers/db.ts";
import { startTestService, type TestService } from "../../helpers/service.ts";
import { sharedFixture, uniqueId } from "../../helpers/shared.ts";
import { type Json, launchPayload } from "../../helpers/payload.ts";
import { signLaunch } from "../../helpers/launch.ts";

/** Options of one launch request. */
export interface LaunchOptions {
  json?: boolean;
  key?: string;
  raw?: string;
  path?: string;
  /** Sent besides Accept (which they may replace). */
  headers?: Record<string, string>;
}

/** The started service and what the tests launch through. */
export interface LaunchFixture {
  svc: TestService;
  adminToken: string;
  app: { appName: string; apiKey: string };
  category: { uid: string };
  path: { uid: string };
  /** Every SQL text the service sent, in order. */
  queries: string[];
  launch(p: Json, opts?: LaunchOptions): Promise<Response>;
  launchJson(p: Json): Promise<{ status: number; body: Json }>;
  dryRun(p: Json): Promise<{ status: number; body: Json }>;
  counts(): Promise<Record<string, number>>;
}

/** One fixture per backend, shared by the tests of the calling file. */
export function launchFixtures(backends: Backend[]): Map<Backend, () => Promise<LaunchFixture>> {
  return new Map(backends.map((backend) => [
    backend,
    sharedFixture(() => startFixture(backend), (f) => f.svc.close()),
  ]));
}

/**
 * The file's `test` for `backend`: registers `fn` on that backend's shared fixture (from
 * launchFixtures), named `${prefix}${name} [backend]`.
 */
export function fixtureTest(
  fixtures: Map<Backend, () => Promise<LaunchFixture>>,
  backend: Backend,
  prefix: string,
): (name: string, fn: (f: LaunchFixture) => Promise<void>) => void {
  return (name, fn) =>
    Deno.test({
      name: `${prefix}${name} [${backend.name}]`,
      sanitizeOps: false,
      sanitizeResources: false,
      fn: async () => await fn(await fixtures.get(backend)!()),
    });
}

async function startFixture(backend: Backend): Promise<LaunchFixture> {
  const queries: string[] = [];
  // No delivery worker: the launch tests count the queries a launch sends, and its polls would
  // land among them (no app of this fixture has a callback URL).
  const svc = await startTestService(backend, {}, { onQuery: (q) => queries.push(q) }, {
    deliveryWorker: false,
  });
  const adminToken = await svc.adminToken();
  const app = await (await svc.api("POST", "/api/v1/admin/apps", adminToken, {
    appName: "crm",
    name: "CRM",
    authType: "signed_request",
    frameAncestors: ["https://host.test"],
  })).json();
  await svc.api("POST", "/api/v1/admin/custom-fields", adminToken, { name: "priority" });
  const category = await (await svc.api("POST", "/api/v1/admin/path-categories", adminToken, {
    name: "Printers",
  })).json();
  const path = await (await svc.api("POST", "/api/v1/admin/paths", adminToken, {
    title: "Offline",
    categoryUid: category.uid,
    tags: ["printer"],
    published: true,
  })).json();
  const launch = async (p: Json, opts: LaunchOptions = {}) => {
    const signed = opts.raw ?? await signLaunch(p, opts.key ?? app.apiKey);
    return await svc.request(opts.path ?? "/portal/api/auth/app/crm", {
      method: "POST",
      headers: { Accept: opts.json ? "application/json" : "text/html", ...opts.headers },
      body: new URLSearchParams({ signed_request: signed }),
    });
  };
  return {
    svc,
    adminToken,
    app,
    category,
    path,
    queries,
    launch,
    async launchJson(p) {
      const res = await launch(p, { json: true });
      return { status: res.status, body: await res.json() };
    },
    async dryRun(p) {
      const res = await launch(p, { path: "/portal/api/auth/app/crm/validate" });
      return { status: res.status, body: await res.json() };
    },
    async counts() {
      const [row] = await svc.db.sql`select
        (select count(*) from users where role = 'agent') as agents,
        (select count(*) from customers) as customers,
        (select count(*) from sessions) as sessions,
        (select count(*) from devices) as devices,
        (select count(*) from session_custom_fields) as fields,
        (select count(*) from logins) as logins,
        (select count(*) from teams) as teams,
        (select count(*) from launches) as launches`;
      return Object.fromEntries(Object.entries(row).map(([k, v]) => [k, Number(v)]));
    },
  };
}

/** A payload with a fresh agent and a fresh customer, so a test touches only its own rows. */
export function freshPayload(params: Json = {}, user: Json = {}): Json {
  const agent = uniqueId("agent");
  const contact = uniqueId("C");
  return launchPayload(
    { contactId: contact, contactEmail: `${contact.toLowerCase()}@example.org`, ...params },
    { id: agent, email: `${agent}@example.com`, ...user },
  );
}

/** The differences between two counts (only the keys that changed). */
export function delta(
  before: Record<string, number>,
  after: Record<string, number>,
): Record<string, number> {
  return Object.fromEntries(
    Object.keys(after).filter((k) => after[k] !== before[k]).map((k) => [k, after[k] - before[k]]),
  );
}
