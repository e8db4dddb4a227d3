/**
 * `deno task demo`: the mock CRM on its own port, launching the portal of a running service.
 *   PORTAL_API_KEY  the demo app's API key (printed by the service's first start; required)
 *   PORTAL_URL      the portal, with its prefix (default http://localhost:8000/portal)
 *   PORTAL_APP      the App Name (default demo)
 *   DEMO_PORT       the CRM's port (default 8001; give the service's first start the same value:
 *                   the demo app allows http://localhost:<port> as a frame ancestor)
 *   DEMO_HOST       the address it listens on (default 127.0.0.1: it signs launches for whoever
 *                   calls it, so keep it off the network)
 *   PORTAL_CALLBACK_SECRET  the demo app's callback secret (whsec_...), to verify callbacks
 *                   received at /callbacks (printed by the service's first start)
 */
import { demoApp } from "./app.ts";
import { demoSettings } from "./settings.ts";

let settings;
try {
  settings = demoSettings(Deno.env.toObject());
} catch (err) {
  console.error((err as Error).message);
  Deno.exit(2);
}
const { apiKey, port, hostname, portalUrl } = settings;
if (!apiKey) {
  console.error(
    "PORTAL_API_KEY is required: the demo app's API key, printed by `deno task start` on its " +
      "first start. Lost it? Rotate it: POST /api/v1/admin/apps/demo/api-key with an admin " +
      "token answers a new one (GET shows it masked).\n" +
      "  PORTAL_API_KEY=<key> deno task demo",
  );
  Deno.exit(1);
}
Deno.serve(
  { port, hostname, onListen() {} },
  demoApp({
    portalUrl,
    appName: settings.appName,
    apiKey,
    callbackSecret: settings.callbackSecret,
  }),
);
console.log(
  `Mock CRM on http://localhost:${port}/ (listening on ${hostname}) launching ${portalUrl}`,
);
