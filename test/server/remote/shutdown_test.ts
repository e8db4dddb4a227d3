/**
 * A stopping process does not wait for open screen-sharing sockets: on SIGTERM, after the drain,
 * each is closed with 1001 (going away: the page reconnects elsewhere and catches up) and the
 * process exits 0 well within SHUTDOWN_TIMEOUT_MS.
 */
import assert from "node:assert/strict";
import { startProcess } from "../../helpers/process.ts";
import { backends } from "../../helpers/db.ts";
import { signLaunch } from "../../helpers/launch.ts";
import { launchPayload } from "../../helpers/payload.ts";
import { prepareDatabase } from "../ops/fixture.ts";
import { customerCookie, socket } from "./fixture.ts";

Deno.test({
  name: "remote: SIGTERM closes signaling sockets with 1001 and exits 0 in time",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const db = await prepareDatabase(backends.at(-1)!);
    const secret = "s".repeat(40);
    const running = await startProcess({
      ...db.env,
      BOOTSTRAP_CLIENT_ID: "ops",
      BOOTSTRAP_CLIENT_SECRET: secret,
      SHUTDOWN_DRAIN_MS: "300",
      LOG_LEVEL: "info",
      SHUTDOWN_TIMEOUT_MS: "20000",
    });
    try {
      const base = `http://127.0.0.1:${running.port}`;
      const tokenRes = await fetch(`${base}/api/v1/oauth2/token`, {
        method: "POST",
        body: new URLSearchParams({
          grant_type: "client_credentials",
          client_id: "ops",
          client_secret: secret,
        }),
      });
      const token = (await tokenRes.json()).access_token;
      const api = (method: string, path: string, body?: unknown) =>
        fetch(`${base}/api/v1${path}`, {
          method,
          headers: {
            Authorization: `Bearer ${token}`,
            ...(body ? { "Content-Type": "application/json" } : {}),
          },
          body: body ? JSON.stringify(body) : undefined,
        });
      const app = await (await api("POST", "/admin/apps", {
        appName: "crm",
        name: "CRM",
        authType: "signed_request",
      })).json();
      const launched = await (await fetch(`${base}/portal/api/auth/app/crm`, {
        method: "POST",
        headers: { Accept: "application/json" },
        body: new URLSearchParams({
          signed_request: await signLaunch(launchPayload(), app.apiKey),
        }),
      })).json();
      const invite = await (await api("POST", `/sessions/${launched.sessionId}/remote`)).json();
      const joinUrl = invite.joinUrl.replace(/^http:\/\/[^/]+/, base);
      const cookie = await customerCookie(joinUrl);
      const customer = socket(`${joinUrl}/ws`, { Origin: base, Cookie: cookie });
      await customer.opened;
      await customer.next((m) => m.type === "welcome");
      const since = performance.now();
      running.process.kill("SIGTERM");
      const closed = await customer.closed;
      assert.equal(closed.code, 1001);
      const { code } = await running.process.status;
      assert.equal(code, 0, running.output());
      assert.ok(performance.now() - since < 10_000, `${performance.now() - since} ms`);
      assert.match(running.output(), /signaling sockets closed \(1001\)/);
    } finally {
      try {
        running.process.kill("SIGKILL");
      } catch { /* gone */ }
      await running.process.status;
      await db.close();
    }
  },
});
