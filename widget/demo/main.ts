/**
 * `deno task demo`: the mock CRM on its own port, launching the portal of a running service.
 *   PORTAL_API_KEY  the demo app's API key (printed by the service's first start; required)
 *   PORTAL_URL      the portal, with its prefix (default http://localhost:8000/portal)
 *   PORTAL_APP      the App Name (default demo)
 *   DEMO_PORT       the CRM's port (default 8001; the demo app allows it as a frame ancestor)
 *   PORTAL_CALLBACK_SECRET  the demo app's callback secret (whsec_...), to verify callbacks
 *                   received at /callbacks (printed by the service's first start)
 */
import { demoApp } from "./app.ts";

const apiKey = Deno.env.get("PORTAL_API_KEY");
if (!apiKey) {
  console.error(
    "PORTAL_API_KEY is required: the demo app's API key, printed by `deno task start` on its " +
      "first start (or GET /api/v1/admin/apps/demo with an admin token).\n" +
      "  PORTAL_API_KEY=<key> deno task demo",
  );
  Deno.exit(1);
}
const portalUrl = (Deno.env.get("PORTAL_URL") ?? "http://localhost:8000/portal").replace(
  /\/+$/,
  "",
);
const port = Number(Deno.env.get("DEMO_PORT") ?? "8001");
Deno.serve(
  { port, hostname: "0.0.0.0", onListen() {} },
  demoApp({
    portalUrl,
    appName: Deno.env.get("PORTAL_APP") ?? "demo",
    apiKey,
    callbackSecret: Deno.env.get("PORTAL_CALLBACK_SECRET") || undefined,
  }),
);
console.log(`Mock CRM on http://localhost:${port}/ launching ${portalUrl}`);
