/** The mock CRM's settings: its port and its address (loopback unless told otherwise). */
import assert from "node:assert/strict";
import { DEMO_PORT, demoSettings } from "../../widget/demo/settings.ts";

Deno.test("demo settings listen on 127.0.0.1:8001 unless told otherwise", () => {
  const s = demoSettings({ PORTAL_API_KEY: "k" });
  assert.equal(s.hostname, "127.0.0.1", "loopback: it signs launches for whoever calls it");
  assert.equal(s.port, 8001);
  assert.equal(DEMO_PORT, 8001);
  assert.equal(s.portalUrl, "http://localhost:8000/portal");
  assert.equal(s.appName, "demo");
  assert.equal(s.apiKey, "k");
});

Deno.test("demo settings take DEMO_PORT, DEMO_HOST and the portal's URL", () => {
  const s = demoSettings({
    DEMO_PORT: "9123",
    DEMO_HOST: "0.0.0.0",
    PORTAL_URL: "https://portal.example.com/portal//",
    PORTAL_APP: "crm",
  });
  assert.equal(s.port, 9123);
  assert.equal(s.hostname, "0.0.0.0");
  assert.equal(s.portalUrl, "https://portal.example.com/portal");
  assert.equal(s.appName, "crm");
  assert.equal(s.apiKey, null);
});

Deno.test("demo settings refuse a DEMO_PORT that is not a port, naming it", () => {
  for (const bad of ["http", "0", "70000", "80.5"]) {
    assert.throws(() => demoSettings({ DEMO_PORT: bad }), /^Error: DEMO_PORT: expected a port/);
  }
});
