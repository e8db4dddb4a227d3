/**
 * The mock CRM's settings from its environment. It listens on loopback unless DEMO_HOST says
 * otherwise: it signs launches for whoever calls it, so it must not be reachable from the network
 * by default.
 */

/** What `deno task demo` runs with. */
export interface DemoSettings {
  /** The portal's base URL with its prefix, e.g. http://localhost:8000/portal. */
  portalUrl: string;
  appName: string;
  /** The demo app's API key; null when PORTAL_API_KEY is not set. */
  apiKey: string | null;
  callbackSecret: string | undefined;
  /** DEMO_PORT (default 8001): the service's first start lets the demo app be framed there. */
  port: number;
  /** DEMO_HOST (default 127.0.0.1): the address the CRM listens on. */
  hostname: string;
}

/** The default DEMO_PORT (the service's first start reads the same variable). */
export const DEMO_PORT = 8001;

/**
 * The settings of `env`; throws naming DEMO_PORT when it is not a port.
 *
 * @example
 * ```ts
 * demoSettings({ PORTAL_API_KEY: "k" }).hostname; // "127.0.0.1"
 * ```
 */
export function demoSettings(env: Record<string, string | undefined>): DemoSettings {
  const portText = env.DEMO_PORT?.trim() || String(DEMO_PORT);
  const port = Number(portText);
  if (!/^\d+$/.test(portText) || port < 1 || port > 65535) {
    throw new Error(`DEMO_PORT: expected a port from 1 to 65535, got ${portText}`);
  }
  return {
    portalUrl: (env.PORTAL_URL || "http://localhost:8000/portal").replace(/\/+$/, ""),
    appName: env.PORTAL_APP || "demo",
    apiKey: env.PORTAL_API_KEY || null,
    callbackSecret: env.PORTAL_CALLBACK_SECRET || undefined,
    port,
    hostname: env.DEMO_HOST?.trim() || "127.0.0.1",
  };
}
