/**
 * The service as a process, with what observability tests need around it: an OTLP/HTTP receiver
 * (JSON bodies, as Deno sends them with OTEL_EXPORTER_OTLP_PROTOCOL=http/json), an admin client,
 * apps created through the admin API, and launches over the network.
 */
import { signLaunch } from "../../helpers/launch.ts";
import { type Json, launchPayload } from "../../helpers/payload.ts";
import { type Running, startProcess, stopProcess } from "../../helpers/process.ts";
import { uniqueId } from "../../helpers/shared.ts";
import { type Prepared, prepareDatabase } from "../ops/fixture.ts";
import { backends } from "../../helpers/db.ts";

/** What an OTLP receiver got: every request body by signal. */
export interface OtlpReceiver {
  url: string;
  traces: Json[];
  metrics: Json[];
  close(): Promise<void>;
}

/** An OTLP/HTTP receiver on a free loopback port: POST /v1/traces, /v1/metrics, /v1/logs. */
export function startOtlpReceiver(): OtlpReceiver {
  const ac = new AbortController();
  const receiver: OtlpReceiver = {
    url: "",
    traces: [],
    metrics: [],
    close: async () => {
      ac.abort();
      await server.finished;
    },
  };
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, signal: ac.signal, onListen: () => {} },
    async (req) => {
      const path = new URL(req.url).pathname;
      const body = await req.text();
      if (!(req.headers.get("content-type") ?? "").includes("json")) {
        return new Response("send http/json", { status: 415 });
      }
      if (path === "/v1/traces") receiver.traces.push(JSON.parse(body));
      else if (path === "/v1/metrics") receiver.metrics.push(JSON.parse(body));
      return Response.json({});
    },
  );
  receiver.url = `http://127.0.0.1:${server.addr.port}`;
  return receiver;
}

/**
 * The variables that make the service export to `receiver` over OTLP/HTTP JSON, quickly enough
 * for a test: metrics every 200 ms, span batches every 100 ms, console lines not exported.
 */
export function exportingTo(receiver: OtlpReceiver): Record<string, string> {
  return {
    OTEL_DENO: "true",
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
    OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
    OTEL_METRIC_EXPORT_INTERVAL: "200",
    OTEL_BSP_SCHEDULE_DELAY: "100",
    OTEL_DENO_CONSOLE: "ignore",
  };
}

/** One exported span, its attributes as a plain object. */
export interface ExportedSpan {
  scope: string;
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  kind: number;
  attributes: Record<string, unknown>;
  links: { traceId: string; spanId: string }[];
  /** Start and end, milliseconds since the epoch (to the microsecond). */
  start: number;
  end: number;
}

function attributeValue(value: Json): unknown {
  return value.stringValue ?? value.intValue ?? value.doubleValue ?? value.boolValue ??
    value.arrayValue?.values?.map(attributeValue);
}

/** Attribute lists (`[{key, value}]`) as an object. */
export function attributesOf(list: Json[] = []): Record<string, unknown> {
  return Object.fromEntries(list.map((a) => [a.key, attributeValue(a.value)]));
}

/** Every span the receiver got. */
export function spansOf(receiver: OtlpReceiver): ExportedSpan[] {
  return receiver.traces.flatMap((body) =>
    body.resourceSpans.flatMap((r: Json) =>
      r.scopeSpans.flatMap((s: Json) =>
        s.spans.map((span: Json) => ({
          scope: s.scope.name,
          traceId: span.traceId,
          spanId: span.spanId,
          parentSpanId: span.parentSpanId,
          name: span.name,
          kind: span.kind,
          attributes: attributesOf(span.attributes),
          links: (span.links ?? []).map((l: Json) => ({ traceId: l.traceId, spanId: l.spanId })),
          start: Number(BigInt(span.startTimeUnixNano ?? 0) / 1000n) / 1000,
          end: Number(BigInt(span.endTimeUnixNano ?? 0) / 1000n) / 1000,
        }))
      )
    )
  );
}

/** One data point of an exported metric. */
export interface ExportedPoint {
  attributes: Record<string, unknown>;
  /** Sums and gauges: the value; histograms: the count. */
  value: number;
}

/** The data points of metric `name` in the receiver's latest export that has it. */
export function latestPoints(
  receiver: OtlpReceiver,
  name: string,
  scope?: string,
): ExportedPoint[] | null {
  for (const body of [...receiver.metrics].reverse()) {
    for (const r of body.resourceMetrics) {
      for (const s of r.scopeMetrics) {
        if (scope !== undefined && s.scope?.name !== scope) continue;
        const metric = s.metrics.find((m: Json) => m.name === name);
        if (!metric) continue;
        const points = metric.sum?.dataPoints ?? metric.gauge?.dataPoints ??
          metric.histogram?.dataPoints ?? [];
        return points.map((p: Json) => ({
          attributes: attributesOf(p.attributes),
          value: Number(p.asInt ?? p.asDouble ?? p.count),
        }));
      }
    }
  }
  return null;
}

const ADMIN = { id: "obs-admin", secret: "obs-admin-secret-0123456789abcdefghijkl" };

/** A service process on a prepared database, and what drives it. */
export interface Observed {
  running: Running;
  base: string;
  prepared: Prepared;
  /** A token of the bootstrap admin client. */
  adminToken(): Promise<string>;
  /** Creates a signed_request app; `extra` merges into the admin API's body. */
  createApp(extra?: Json): Promise<{ appName: string; apiKey: string }>;
  /** Posts a launch of `payload` (signed with the app's key, or `signedRequest` as given). */
  launch(
    app: { appName: string; apiKey: string },
    payload: Json,
    options?: { signedRequest?: string; query?: string },
  ): Promise<Response>;
  stop(): Promise<number>;
}

/**
 * Starts the service as a process with `env` added, on a fresh database, or on `given` (then
 * `stop` leaves it for the caller to close).
 */
export async function startObserved(
  env: Record<string, string>,
  given?: Prepared,
): Promise<Observed> {
  const prepared = given ?? await prepareDatabase(backends.at(-1)!);
  let running: Running;
  try {
    running = await startProcess({
      ...prepared.env,
      BOOTSTRAP_CLIENT_ID: ADMIN.id,
      BOOTSTRAP_CLIENT_SECRET: ADMIN.secret,
      ...env,
    });
  } catch (err) {
    if (!given) await prepared.close();
    throw err;
  }
  const base = `http://127.0.0.1:${running.port}`;
  const observed: Observed = {
    running,
    base,
    prepared,
    async adminToken() {
      const res = await fetch(`${base}/api/v1/oauth2/token`, {
        method: "POST",
        body: new URLSearchParams({
          grant_type: "client_credentials",
          client_id: ADMIN.id,
          client_secret: ADMIN.secret,
        }),
      });
      if (res.status !== 200) throw new Error(`token: ${res.status} ${await res.text()}`);
      return (await res.json()).access_token;
    },
    async createApp(extra = {}) {
      const res = await fetch(`${base}/api/v1/admin/apps`, {
        method: "POST",
        headers: {
          Authorization: `Bearer ${await observed.adminToken()}`,
          "Content-Type": "application/json",
        },
        body: JSON.stringify({
          appName: uniqueId("obs"),
          name: "Observed",
          authType: "signed_request",
          ...extra,
        }),
      });
      if (res.status !== 201) throw new Error(`create app: ${res.status} ${await res.text()}`);
      return await res.json();
    },
    async launch(app, payload, options = {}) {
      const signed = options.signedRequest ?? await signLaunch(payload, app.apiKey);
      return await fetch(`${base}/portal/api/auth/app/${app.appName}${options.query ?? ""}`, {
        method: "POST",
        headers: { Accept: "application/json" },
        body: new URLSearchParams({ signed_request: signed }),
      });
    },
    async stop() {
      try {
        return await stopProcess(running);
      } finally {
        if (!given) await prepared.close();
      }
    },
  };
  return observed;
}

/** A launch payload for session `referenceId` with unique agent and contact values. */
export function uniquePayload(referenceId: string): Json {
  const agent = uniqueId("agent");
  return launchPayload(
    { referenceId, contactId: uniqueId("C"), contactEmail: `${uniqueId("contact")}@example.org` },
    { id: agent, email: `${agent}@example.com` },
  );
}
