/**
 * GET /metrics on its own listener (METRICS_PORT, loopback unless METRICS_HOST says otherwise):
 * the registry in the Prometheus text format. Off unless METRICS_PORT is set; never on the
 * service's own port, so a public listener never shows it.
 */
import { registry } from "./instruments.ts";

/** A metrics listener. */
export interface MetricsListener {
  /** `http://host:port/metrics`. */
  url: string;
  close(): Promise<void>;
}

/** The content type of the Prometheus text format. */
export const PROMETHEUS_TEXT = "text/plain; version=0.0.4; charset=utf-8";

async function answer(req: Request): Promise<Response> {
  const path = new URL(req.url).pathname;
  if (path !== "/metrics") return new Response("Not found: GET /metrics\n", { status: 404 });
  if (req.method !== "GET" && req.method !== "HEAD") {
    return new Response("Method not allowed\n", { status: 405, headers: { Allow: "GET, HEAD" } });
  }
  return new Response(await registry.render(), { headers: { "Content-Type": PROMETHEUS_TEXT } });
}

/**
 * Serves /metrics on `host`:`port`; with `tries` > 1 (the processes of `deno task serve`, which
 * share one environment), on the first free port of `port` … `port + tries - 1`.
 */
export function serveMetrics(host: string, port: number, tries = 1): MetricsListener {
  for (let at = port;; at++) {
    try {
      const server = Deno.serve({ hostname: host, port: at, onListen: () => {} }, answer);
      const shown = host.includes(":") ? `[${host}]` : host;
      return { url: `http://${shown}:${at}/metrics`, close: () => server.shutdown() };
    } catch (err) {
      if (!(err instanceof Deno.errors.AddrInUse) || at >= port + tries - 1 || at >= 65535) {
        throw err;
      }
    }
  }
}
