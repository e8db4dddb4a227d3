/**
 * OpenTelemetry end to end: the service as a process with OTEL_DENO=true exports to a real
 * OTLP/HTTP receiver started here (http/json). One launch whose session calls a CRM back, one
 * password-reset link and one unknown route are sent; the spans and metrics that arrive are
 * checked: server spans named by route, a span per query without values, the callback delivery
 * linked to the launch, URLs without query strings or reset tokens, the product metrics.
 */
import assert from "node:assert/strict";
import { startCrmServer, waitUntil } from "../../helpers/crm_server.ts";
import { sharedFixture, uniqueId } from "../../helpers/shared.ts";
import {
  type ExportedSpan,
  exportingTo,
  latestPoints,
  type Observed,
  type OtlpReceiver,
  spansOf,
  startObserved,
  startOtlpReceiver,
  uniquePayload,
} from "./fixture.ts";

const opts = { sanitizeOps: false, sanitizeResources: false };
const LAUNCH_ROUTE = "/portal/api/auth/app/:app_name";
const QUERY_SECRET = "q-secret-7f3a";
// A reset link's token: 43 Base64url characters, as the reset routes accept.
const RESET_TOKEN = "rT0k".repeat(10) + "abc";

interface Scene {
  receiver: OtlpReceiver;
  observed: Observed;
  crmClose: () => Promise<void>;
  /** The W3C traceparent the CRM received with the first delivery. */
  crmTraceparent: string | undefined;
  appName: string;
  /** Values the launch carried, which no span may hold. */
  values: string[];
  launchId: number;
}

const scene = sharedFixture<Scene>(async () => {
  const receiver = startOtlpReceiver();
  const crm = startCrmServer();
  const observed = await startObserved({
    ...exportingTo(receiver),
    CALLBACK_ALLOW_PRIVATE_NETWORKS: "true",
  });
  const app = await observed.createApp({ callbackUrl: `${crm.url}/hooks/{referenceId}` });
  const referenceId = uniqueId("REF");
  const payload = uniquePayload(referenceId);
  const launched = await observed.launch(app, payload, { query: `?token=${QUERY_SECRET}` });
  assert.equal(launched.status, 200, await launched.clone().text());
  const { launchId } = await launched.json();
  await crm.waitFor(1, 20_000);
  for (const path of [`/portal/password-reset/${RESET_TOKEN}?next=${QUERY_SECRET}`, "/nowhere"]) {
    await (await fetch(`${observed.base}${path}`)).body?.cancel();
  }
  const user = payload.context.user;
  const params = payload.context.environment.parameters;
  return {
    receiver,
    observed,
    crmClose: () => crm.close(),
    crmTraceparent: crm.received[0].headers.traceparent,
    appName: app.appName,
    values: [user.id, user.email, params.contactEmail, params.contactId, referenceId],
    launchId,
  };
}, async (s) => {
  await s.observed.stop();
  await s.crmClose();
  await s.receiver.close();
});

/** Waits until a span `matches` has arrived. */
async function spanWhere(
  s: Scene,
  what: string,
  matches: (span: ExportedSpan) => boolean,
): Promise<ExportedSpan> {
  return await waitUntil(() => spansOf(s.receiver).find(matches), what, 20_000);
}

const isResetSpan = (x: ExportedSpan) => x.kind === 2 && x.name.includes("/password-reset/");
const launchSpan = (s: Scene) =>
  spanWhere(s, "the launch's server span", (x) => x.name === `POST ${LAUNCH_ROUTE}`);

Deno.test({
  name: "otel: server spans are named by route, with http.route",
  ...opts,
  async fn() {
    const s = await scene();
    const launch = await launchSpan(s);
    assert.equal(launch.kind, 2, "a server span");
    assert.equal(launch.attributes["http.route"], LAUNCH_ROUTE);
    assert.equal(launch.attributes["http.response.status_code"], "200");
    const reset = await spanWhere(s, "the reset link's span", isResetSpan);
    assert.match(reset.name, /^GET \/portal\/password-reset\/:token/);
    // No route matched: the span keeps its method-only name (never the raw path).
    const unknown = await spanWhere(
      s,
      "the unknown route's span",
      (x) => x.kind === 2 && String(x.attributes["url.path"]).startsWith("/nowhere"),
    );
    assert.equal(unknown.name, "GET");
    assert.equal(unknown.attributes["http.route"], undefined);
  },
});

Deno.test({
  name: "otel: each query of the launch has a span named by its statement, with no values",
  ...opts,
  async fn() {
    const s = await scene();
    const launch = await launchSpan(s);
    const apply = await spanWhere(
      s,
      "the launch_apply span",
      (x) => x.parentSpanId === launch.spanId && x.name === "SELECT launch_apply",
    );
    assert.equal(apply.traceId, launch.traceId);
    assert.equal(apply.kind, 3, "a client span");
    assert.equal(apply.attributes["db.system.name"], "postgresql");
    assert.equal(apply.attributes["db.stored_procedure.name"], "launch_apply");
    assert.equal(apply.attributes["code.function.name"], "callLaunchApply");
    const queries = spansOf(s.receiver).filter((x) => x.scope === "portal-launcher/db");
    for (const span of queries) {
      const text = JSON.stringify(span);
      for (const value of s.values) assert.ok(!text.includes(value), `${span.name}: ${value}`);
    }
  },
});

Deno.test({
  name: "otel: a batched token insert is traced in a token request that waits for it",
  ...opts,
  async fn() {
    const s = await scene();
    await s.observed.adminToken(); // the client's salt is known: tokens take the batched insert
    const before = new Set(spansOf(s.receiver).map((x) => x.spanId));
    const tokens = await Promise.all(Array.from({ length: 24 }, () => s.observed.adminToken()));
    assert.equal(new Set(tokens).size, 24);
    const isRequest = (x: ExportedSpan) =>
      x.kind === 2 && x.name === "POST /api/v1/oauth2/token" && !before.has(x.spanId);
    const requests = await waitUntil(
      () => {
        const found = spansOf(s.receiver).filter(isRequest);
        // 25 when the first request's span was exported after `before` was taken.
        return found.length >= 24 ? found : undefined;
      },
      "the 24 token requests' spans",
      20_000,
    );
    const byId = new Map(requests.map((x) => [x.spanId, x]));
    const first = requests.reduce((t, x) => x.start < t ? x.start : t, requests[0].start);
    const inserts = spansOf(s.receiver).filter((x) =>
      x.name === "INSERT access_tokens" && !before.has(x.spanId) && x.start >= first
    );
    assert.ok(inserts.length >= 1 && inserts.length < 24, `${inserts.length} inserts`);
    for (const insert of inserts) {
      const parent = byId.get(insert.parentSpanId);
      assert.ok(parent, "the insert's parent is one of the token requests");
      assert.equal(insert.traceId, parent.traceId);
      assert.ok(insert.end <= parent.end, "the request the insert is traced in waited for it");
    }
  },
});

Deno.test({
  name: "otel: a callback delivery has its own trace, linked to the launch that emitted it",
  ...opts,
  async fn() {
    const s = await scene();
    const launch = await launchSpan(s);
    const delivery = await spanWhere(s, "the delivery span", (x) => x.name.startsWith("callback "));
    assert.equal(delivery.parentSpanId, "", "a new trace");
    assert.notEqual(delivery.traceId, launch.traceId);
    assert.deepEqual(delivery.links, [{ traceId: launch.traceId, spanId: launch.spanId }]);
    assert.equal(delivery.attributes["portal.callback.result"], "delivered");
    assert.equal(delivery.attributes["portal.app"], s.appName);
    // The CRM request is the delivery's child (a client span, as Deno makes for a fetch), and
    // the CRM was sent its trace context, so its own spans can continue the trace.
    const call = await spanWhere(
      s,
      "the callback's request",
      (x) => x.parentSpanId === delivery.spanId,
    );
    assert.equal(call.kind, 3);
    assert.equal(call.name, "POST");
    assert.equal(call.attributes["http.response.status_code"], 200);
    assert.equal(call.attributes["http.request.method"], "POST");
    assert.equal(s.crmTraceparent, `00-${call.traceId}-${call.spanId}-01`);
  },
});

Deno.test({
  name: "otel: span URLs carry no query string and no reset token",
  ...opts,
  async fn() {
    const s = await scene();
    const launch = await launchSpan(s);
    assert.equal(
      launch.attributes["url.full"],
      `${s.observed.base}/portal/api/auth/app/${s.appName}`,
    );
    assert.equal(launch.attributes["url.query"], undefined);
    const reset = await spanWhere(s, "the reset link's span", isResetSpan);
    assert.equal(reset.attributes["url.full"], `${s.observed.base}/portal/password-reset/…`);
    assert.equal(reset.attributes["url.path"], "/portal/password-reset/…");
    const everything = JSON.stringify(s.receiver.traces);
    assert.ok(!everything.includes(RESET_TOKEN), "the reset token is in no span");
    assert.ok(!everything.includes(QUERY_SECRET), "no query string is in any span");
  },
});

Deno.test({
  name: "otel: the product metrics arrive over OTLP",
  ...opts,
  async fn() {
    const s = await scene();
    const point = (name: string, match: Record<string, string> = {}) =>
      waitUntil(
        () =>
          latestPoints(s.receiver, name)?.find((p) =>
            Object.entries(match).every(([k, v]) => p.attributes[k] === v)
          ),
        `${name} ${JSON.stringify(match)}`,
        20_000,
      );
    assert.equal((await point("portal.launches", { app: s.appName, outcome: "ok" })).value, 1);
    assert.equal((await point("portal.launch.duration", { result: "ok" })).value, 1);
    assert.ok((await point("portal.oauth.tokens", { result: "issued" })).value >= 1);
    const delivered = await point("portal.callback.deliveries", { app: s.appName });
    assert.equal(delivered.attributes.result, "delivered");
    assert.ok(
      (await point("portal.callback.delivery.duration", { result: "delivered" })).value >= 1,
    );
    assert.equal((await point("portal.http.requests", { route: LAUNCH_ROUTE })).value, 1);
    assert.equal((await point("portal.callback.outbox.pending")).value, 0);
    assert.ok((await point("portal.callback.outbox.oldest_age")).value >= 0);
    assert.ok((await point("portal.db.pool.size")).value >= 1);
    assert.ok((await point("portal.db.pool.in_use")).value >= 0);
    assert.ok((await point("portal.db.pool.waiting")).value >= 0);
    assert.equal((await point("portal.ready")).value, 1);
    assert.equal((await point("portal.build.info", { deno: Deno.version.deno })).value, 1);
    // OpenTelemetry's conventions: CPU by `cpu.mode`, the heap by space (as Deno's own v8js.*).
    assert.ok((await point("process.cpu.time", { "cpu.mode": "user" })).value > 0);
    assert.ok((await point("process.cpu.time", { "cpu.mode": "system" })).value >= 0);
    assert.ok((await point("process.memory.usage")).value > 10 * 2 ** 20);
    assert.ok((await point("process.start_time")).value * 1e3 < Date.now());
    assert.ok((await point("portal.event_loop.delay")).value >= 1);
    // The service's own instrument (scope portal-launcher), not a series of Deno's v8js scope.
    const ours = () =>
      latestPoints(s.receiver, "v8js.memory.heap.used", "portal-launcher") ?? false;
    const spaces = await waitUntil(() => ours(), "the service's heap by space", 20_000);
    assert.ok(spaces.every((p) => p.attributes["v8js.heap.space.name"]), "each names its space");
    assert.ok(spaces.some((p) => p.attributes["v8js.heap.space.name"] === "old_space"));
    const heapUsed = spaces.reduce((sum, p) => sum + p.value, 0);
    assert.ok(heapUsed > 0 && (await point("portal.heap.limit")).value > heapUsed);
  },
});
