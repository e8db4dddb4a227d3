/**
 * Traces through Deno's built-in OpenTelemetry (OTEL_DENO=true): Deno makes the server span of
 * every request and the client span of every fetch; this module names server spans by route,
 * keeps secrets out of their URLs, and makes the span of each callback delivery, linked to the
 * change that emitted the event (its stored traceparent). With tracing off, it does nothing.
 */
import {
  context,
  type Link,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
  type TraceFlags,
} from "@opentelemetry/api";
import { TRACING } from "../../db/instrument.ts";
import { redactPath } from "../http/redact.ts";

const tracer = trace.getTracer("portal-launcher");

/**
 * scheme://host[:port]: a name ending in a letter label (no punycode `xn--` label, which the
 * parser checks), or a dotted quad; no default port and no leading zero (redactUrl also leaves a
 * port over 65535 to the parser).
 */
const PLAIN_ORIGIN = String.raw`https?:\/\/(?:(?:(?!xn--)[a-z0-9-]+\.)*(?!xn--)[a-z][a-z0-9-]*|` +
  String.raw`(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d))` +
  String.raw`(?::(?!0|80(?!\d)|443(?!\d))(\d{1,5}))?`;
const PLAIN_URL = new RegExp(`^(${PLAIN_ORIGIN})(\\/[A-Za-z0-9\\/_~+,;=:-]*)(?:[?#]|$)`);

/**
 * What runs later on behalf of the current request (a batched insert: server/batcher.ts) runs
 * within the trace context active now, so its spans are that request's. Tracing off: as it is.
 */
export function bindToTrace(): <T>(fn: () => T) => T {
  if (!TRACING) return (fn) => fn();
  const active = context.active();
  return (fn) => context.with(active, fn);
}

/**
 * A URL as spans may carry it: no query, fragment or credentials, and the path redacted by the
 * request log's rule (server/http/redact.ts: reset tokens and token-shaped segments become `…`).
 */
export function redactUrl(url: string): string {
  // A plain URL (lower-case host, no credentials, no default port, a path of characters the URL
  // parser keeps as they are) is cut as it stands: the parse below gave the same, at a cost paid
  // for each span with a URL.
  const plain = PLAIN_URL.exec(url);
  if (plain && !(Number(plain[2]) > 65_535)) return `${plain[1]}${redactPath(plain[3])}`;
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.host}${redactPath(parsed.pathname)}`;
  } catch {
    return redactPath(url.split(/[?#]/, 1)[0]);
  }
}

const PATCHED = Symbol.for("portal-launcher.redacted-span-urls");

/**
 * Makes every span's URL attributes safe. Deno sets `url.full`, `url.path` and `url.query` on
 * its server and fetch spans from the raw request before any of our code runs, and setting them
 * again adds a second attribute rather than replacing the first. So the setter of Deno's span
 * class is wrapped once, before the first request: `url.full` is kept redacted (redactUrl),
 * `url.path` redacted, `url.query` dropped. The span class is reached through a span that is
 * never ended (an unended span is never exported).
 */
export function redactSpanUrls(): void {
  if (!TRACING) return;
  const proto = Object.getPrototypeOf(tracer.startSpan("url redaction probe")) as
    & Record<symbol, boolean>
    & { setAttribute(key: string, value: unknown): unknown };
  if (proto[PATCHED] || typeof proto.setAttribute !== "function") return;
  const setAttribute = proto.setAttribute;
  proto.setAttribute = function (this: unknown, key: string, value: unknown) {
    if (typeof value === "string") {
      if (key === "url.query") return this;
      if (key === "url.full") value = redactUrl(value);
      else if (key === "url.path") value = redactPath(value);
    }
    return setAttribute.call(this, key, value);
  };
  proto[PATCHED] = true;
}

/** Names the request's server span by its route (`GET /portal/sessions/:id`). */
export function nameServerSpan(method: string, route: string | undefined): void {
  if (!TRACING || !route) return;
  const span = trace.getActiveSpan();
  span?.updateName(`${method} ${route}`);
  span?.setAttribute("http.route", route);
}

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/** The span a stored W3C traceparent names, as a link (null when there is none or it is bad). */
export function linkTo(traceparent: string | null | undefined): Link | null {
  const m = traceparent ? TRACEPARENT.exec(traceparent) : null;
  if (!m) return null;
  const spanContext = {
    traceId: m[1],
    spanId: m[2],
    traceFlags: parseInt(m[3], 16) as TraceFlags,
    isRemote: true,
  };
  return trace.isSpanContextValid(spanContext) ? { context: spanContext } : null;
}

/** What a delivery span says about its event and the attempt's outcome. */
export interface DeliveryFacts {
  id: number;
  type: string;
  appName: string;
  attempts: number;
  traceparent?: string | null;
}

/**
 * Runs one delivery attempt in its own span (a new trace, linked to the change that emitted the
 * event): the attempt's fetch is its child. `outcome` reads the result's attributes.
 */
export async function inDeliverySpan<T>(
  event: DeliveryFacts,
  attempt: () => Promise<T>,
  outcome: (result: T) => { result: string; statusCode: number | null },
): Promise<T> {
  if (!TRACING) return await attempt();
  const link = linkTo(event.traceparent);
  const span: Span = tracer.startSpan(`callback ${event.type}`, {
    kind: SpanKind.PRODUCER,
    root: true,
    links: link ? [link] : [],
    attributes: {
      "portal.callback.event_id": event.id,
      "portal.callback.type": event.type,
      "portal.callback.attempt": event.attempts,
      "portal.app": event.appName,
    },
  });
  try {
    const result = await context.with(trace.setSpan(context.active(), span), attempt);
    const { result: name, statusCode } = outcome(result);
    span.setAttribute("portal.callback.result", name);
    if (statusCode !== null) span.setAttribute("http.response.status_code", statusCode);
    if (name !== "delivered") span.setStatus({ code: SpanStatusCode.ERROR, message: name });
    return result;
  } catch (err) {
    span.setStatus({ code: SpanStatusCode.ERROR, message: (err as Error)?.name ?? "Error" });
    throw err;
  } finally {
    span.end();
  }
}

/**
 * Runs one outgoing request of the callbacks' own HTTP client in a client span, as Deno makes for
 * each `fetch` (OpenTelemetry's HTTP conventions: named by the method, `url.full` redacted), and
 * hands `send` the W3C `traceparent` to add to the request, so the CRM can continue the trace.
 */
export async function inClientSpan<T extends { status: number }>(
  method: string,
  url: URL,
  send: (traceHeaders: Record<string, string>) => Promise<T>,
): Promise<T> {
  if (!TRACING) return await send({});
  const span = tracer.startSpan(method, {
    kind: SpanKind.CLIENT,
    attributes: {
      "http.request.method": method,
      "url.full": redactUrl(url.href),
      "server.address": url.hostname,
      "server.port": Number(url.port) || (url.protocol === "https:" ? 443 : 80),
    },
  });
  const { traceId, spanId, traceFlags } = span.spanContext();
  const flags = traceFlags.toString(16).padStart(2, "0");
  try {
    const answer = await send({ traceparent: `00-${traceId}-${spanId}-${flags}` });
    span.setAttribute("http.response.status_code", answer.status);
    if (answer.status >= 400) {
      span.setAttribute("error.type", String(answer.status));
      span.setStatus({ code: SpanStatusCode.ERROR });
    }
    return answer;
  } catch (err) {
    const type = (err as Error)?.name ?? "Error";
    span.setAttribute("error.type", type);
    span.setStatus({ code: SpanStatusCode.ERROR, message: type });
    throw err;
  } finally {
    span.end();
  }
}
