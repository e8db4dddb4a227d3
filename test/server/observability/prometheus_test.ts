/**
 * GET /metrics on METRICS_PORT: the service as a process, its exposition read with the
 * `parse-prometheus-text-format` npm parser (which throws on a malformed line), before and after
 * launches, a token request, a failed sign-in and a callback the CRM refuses.
 */
import assert from "node:assert/strict";
import parsePrometheusTextFormat from "parse-prometheus-text-format";
import { startCrmServer, waitUntil } from "../../helpers/crm_server.ts";
import { freePort } from "../../helpers/process.ts";
import { assertNearVmRss, PROCESS_FAMILIES } from "../../helpers/process_metrics.ts";
import { sharedFixture, uniqueId } from "../../helpers/shared.ts";
import { type Observed, startObserved, uniquePayload } from "./fixture.ts";

const opts = { sanitizeOps: false, sanitizeResources: false };
const LAUNCH_ROUTE = "/portal/api/auth/app/:app_name";

interface Family {
  name: string;
  type: string;
  help: string;
  metrics: { labels?: Record<string, string>; value?: string }[];
}

interface Scene {
  observed: Observed;
  metricsPort: number;
  crm: ReturnType<typeof startCrmServer>;
  app: { appName: string; apiKey: string };
  embedded: boolean;
}

const scene = sharedFixture<Scene>(async () => {
  const crm = startCrmServer();
  // The CRM is down: every callback is retried, so the outbox holds it.
  crm.fallback = { status: 503 };
  const metricsPort = freePort();
  const observed = await startObserved({
    METRICS_PORT: String(metricsPort),
    CALLBACK_ALLOW_PRIVATE_NETWORKS: "true",
    DATABASE_POOL_SIZE: "4",
  });
  const app = await observed.createApp({ callbackUrl: `${crm.url}/hooks/{referenceId}` });
  const embedded = "DATA_DIR" in observed.prepared.env &&
    !("DATABASE_URL" in observed.prepared.env);
  return { observed, metricsPort, crm, app, embedded };
}, async (s) => {
  await s.observed.stop();
  await s.crm.close();
});

async function scrape(s: Scene): Promise<{ text: string; families: Map<string, Family> }> {
  const res = await fetch(`http://127.0.0.1:${s.metricsPort}/metrics`);
  assert.equal(res.status, 200);
  assert.equal(res.headers.get("Content-Type"), "text/plain; version=0.0.4; charset=utf-8");
  const text = await res.text();
  const families: Family[] = parsePrometheusTextFormat(text);
  return { text, families: new Map(families.map((f) => [f.name, f])) };
}

/** The value of the series of `name` whose labels include `labels` (0 when there is none). */
function valueOf(
  families: Map<string, Family>,
  name: string,
  labels: Record<string, string> = {},
): number {
  const family = families.get(name);
  assert.ok(family, `no ${name}`);
  const series = family.metrics.find((m) =>
    Object.entries(labels).every(([k, v]) => m.labels?.[k] === v)
  );
  return Number(series?.value ?? 0);
}

Deno.test({
  name: "prometheus: /metrics parses and lists every product instrument with its type",
  ...opts,
  async fn() {
    const s = await scene();
    const { families } = await scrape(s);
    const types = Object.fromEntries([...families.values()].map((f) => [f.name, f.type]));
    assert.deepEqual(types, {
      portal_http_requests_total: "COUNTER",
      portal_http_request_duration_seconds: "HISTOGRAM",
      portal_launches_total: "COUNTER",
      portal_launch_duration_seconds: "HISTOGRAM",
      portal_oauth_tokens_total: "COUNTER",
      portal_sign_in_failures_total: "COUNTER",
      portal_callback_deliveries_total: "COUNTER",
      portal_callback_delivery_duration_seconds: "HISTOGRAM",
      portal_callback_outbox_pending: "GAUGE",
      portal_callback_outbox_oldest_age_seconds: "GAUGE",
      portal_db_pool_in_use: "GAUGE",
      portal_db_pool_waiting: "GAUGE",
      portal_db_pool_size: "GAUGE",
      portal_launch_gate_active: "GAUGE",
      portal_launch_gate_waiting: "GAUGE",
      portal_ready: "GAUGE",
      ...PROCESS_FAMILIES,
    });
    for (const family of families.values()) assert.ok(family.help.length > 20, family.name);
    assert.equal(valueOf(families, "portal_db_pool_size"), s.embedded ? 1 : 4);
    assert.equal(valueOf(families, "portal_ready"), 1);
  },
});

Deno.test({
  name: "prometheus: the process metrics are the service process's own",
  ignore: Deno.build.os !== "linux",
  ...opts,
  async fn() {
    const s = await scene();
    const pid = s.observed.running.process.pid;
    const { families } = await scrape(s);
    // Read from outside: the kernel's own view of the service process.
    await assertNearVmRss(valueOf(families, "process_resident_memory_bytes"), pid);
    const startedAgo = Date.now() / 1e3 - valueOf(families, "process_start_time_seconds");
    assert.ok(startedAgo > 0 && startedAgo < 600, `started ${startedAgo} s ago`);
    assert.ok(valueOf(families, "process_cpu_seconds_total") > 0);
    // What runs, for rollouts: the release (deno.json's version) and the runtime.
    const { version } = JSON.parse(
      await Deno.readTextFile(new URL("../../../deno.json", import.meta.url)),
    );
    assert.equal(valueOf(families, "portal_build_info", { version, deno: Deno.version.deno }), 1);
    // The serving process samples its event loop twice a second.
    await waitUntil(
      async () => {
        const { text } = await scrape(s);
        return Number(/^portal_event_loop_delay_seconds_count (\S+)$/m.exec(text)?.[1]) >= 1;
      },
      "an event loop sample",
      10_000,
    );
  },
});

Deno.test({
  name: "prometheus: launch counters move by app and outcome as launches happen",
  ...opts,
  async fn() {
    const s = await scene();
    const before = (await scrape(s)).families;
    const ok = { app: s.app.appName, outcome: "ok" };
    const refused = { app: s.app.appName, outcome: "invalid_signature" };
    for (let i = 0; i < 2; i++) {
      const res = await s.observed.launch(s.app, uniquePayload(uniqueId("R")));
      assert.equal(res.status, 200, await res.text());
    }
    const bad = await s.observed.launch(s.app, {}, { signedRequest: "AAAA.eyJ9" });
    assert.equal(bad.status, 401, await bad.text());
    // App names match in any case; the label is the stored name, whatever spelling was posted.
    const shouted = { ...s.app, appName: s.app.appName.toUpperCase() };
    const badShouted = await s.observed.launch(shouted, {}, { signedRequest: "AAAA.eyJ9" });
    assert.equal(badShouted.status, 401, await badShouted.text());
    const unknown = await s.observed.launch({ appName: "no-such-app", apiKey: "x" }, {}, {
      signedRequest: "AAAA.eyJ9",
    });
    assert.equal(unknown.status, 404, await unknown.text());
    const { text, families: after } = await scrape(s);
    const delta = (name: string, labels: Record<string, string>) =>
      valueOf(after, name, labels) - valueOf(before, name, labels);
    assert.equal(delta("portal_launches_total", ok), 2);
    assert.equal(delta("portal_launches_total", refused), 2);
    assert.ok(!text.includes(`app="${shouted.appName}"`));
    // An app that does not exist is never a label value (any name can be posted).
    assert.equal(delta("portal_launches_total", { app: "", outcome: "app_not_found" }), 1);
    assert.ok(!text.includes("no-such-app"));
    const route = { method: "POST", route: LAUNCH_ROUTE };
    assert.equal(delta("portal_http_requests_total", { ...route, status: "200" }), 2);
    assert.equal(delta("portal_http_requests_total", { ...route, status: "401" }), 2);
    // Histograms: the parser keeps buckets, so the exposition's own lines are read for counts.
    const count = (series: string) => Number(new RegExp(`^${series} (\\S+)$`, "m").exec(text)?.[1]);
    const okCount = count('portal_launch_duration_seconds_count\\{result="ok"\\}');
    assert.ok(okCount >= 2);
    assert.equal(
      count('portal_launch_duration_seconds_bucket\\{result="ok",le="\\+Inf"\\}'),
      okCount,
    );
  },
});

Deno.test({
  name: "prometheus: methods outside HTTP's own are one _OTHER label, however many are sent",
  ...opts,
  async fn() {
    const s = await scene();
    const before = (await scrape(s)).families;
    const sent = Array.from({ length: 40 }, (_, i) => `M${uniqueId("X").replace(/\W/g, "")}${i}`);
    for (const method of sent) {
      const res = await fetch(`${s.observed.base}/healthz`, { method });
      assert.equal(res.status, 404);
      await res.body?.cancel();
    }
    const { text, families: after } = await scrape(s);
    const unmatched = { method: "_OTHER", route: "(unmatched)", status: "404" };
    assert.equal(
      valueOf(after, "portal_http_requests_total", unmatched) -
        valueOf(before, "portal_http_requests_total", unmatched),
      sent.length,
    );
    for (const method of sent) assert.ok(!text.includes(method), `${method} is a label`);
    assert.ok(!text.includes("_overflow"));
  },
});

Deno.test({
  name: "prometheus: token issuance and sign-in failures are counted",
  ...opts,
  async fn() {
    const s = await scene();
    const before = (await scrape(s)).families;
    await s.observed.adminToken();
    const wrong = await fetch(`${s.observed.base}/api/v1/oauth2/token`, {
      method: "POST",
      body: new URLSearchParams({
        grant_type: "client_credentials",
        client_id: "nobody",
        client_secret: "wrong",
      }),
    });
    assert.equal((await wrong.json()).error, "invalid_client");
    // A sign-in post without the form's token is refused (403): a rejected form.
    const signIn = await fetch(`${s.observed.base}/admin/login`, {
      method: "POST",
      body: new URLSearchParams({ email: "a@example.com", password: "wrong-password-123" }),
      redirect: "manual",
    });
    assert.equal(signIn.status, 403);
    await signIn.body?.cancel();
    const after = (await scrape(s)).families;
    const delta = (name: string, labels: Record<string, string>) =>
      valueOf(after, name, labels) - valueOf(before, name, labels);
    assert.equal(delta("portal_oauth_tokens_total", { result: "issued" }), 1);
    assert.equal(delta("portal_oauth_tokens_total", { result: "invalid_client" }), 1);
    assert.equal(
      delta("portal_sign_in_failures_total", { role: "admin", reason: "rejected_form" }),
      1,
    );
  },
});

Deno.test({
  name: "prometheus: a callback the CRM refuses shows in the outbox gauges and deliveries",
  ...opts,
  async fn() {
    const s = await scene();
    const retries = async () =>
      valueOf((await scrape(s)).families, "portal_callback_deliveries_total", {
        app: s.app.appName,
        result: "retry",
      });
    const before = await retries();
    const received = s.crm.received.length;
    const res = await s.observed.launch(s.app, uniquePayload(uniqueId("R")));
    assert.equal(res.status, 200, await res.text());
    await s.crm.waitFor(received + 1, 20_000);
    await waitUntil(async () => await retries() > before, "a retried delivery counted", 20_000);
    const { families } = await scrape(s);
    assert.ok(valueOf(families, "portal_callback_outbox_pending") >= 1);
    assert.ok(valueOf(families, "portal_callback_outbox_oldest_age_seconds") > 0);
    assert.equal(valueOf(families, "portal_callback_deliveries_total", { result: "delivered" }), 0);
  },
});

Deno.test({
  name: "prometheus: /metrics is served on loopback only, never on the service's port",
  ...opts,
  async fn() {
    const s = await scene();
    await assert.rejects(Deno.connect({ hostname: "127.0.0.2", port: s.metricsPort }));
    const onService = await fetch(`${s.observed.base}/metrics`);
    assert.equal(onService.status, 404);
    await onService.body?.cancel();
    const other = await fetch(`http://127.0.0.1:${s.metricsPort}/other`);
    assert.equal(other.status, 404);
    await other.body?.cancel();
  },
});
