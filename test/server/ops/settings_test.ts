/** The shutdown settings: SHUTDOWN_DRAIN_MS, SHUTDOWN_TIMEOUT_MS and the reserve they leave. */
import assert from "node:assert/strict";
import { ConfigError, loadConfig } from "../../../server/config.ts";
import { reserveMs } from "../../../server/ops/shutdown.ts";

Deno.test("shutdown settings: defaults are a 5 s drain within 15 s", () => {
  const config = loadConfig({});
  assert.equal(config.shutdownDrainMs, 5_000);
  assert.equal(config.shutdownTimeoutMs, 15_000);
  assert.equal(reserveMs(config), 2_000);
});

Deno.test("shutdown settings: the drain must end before the timeout", () => {
  assert.throws(
    () => loadConfig({ SHUTDOWN_DRAIN_MS: "15000" }),
    (err: Error) =>
      err instanceof ConfigError &&
      /SHUTDOWN_DRAIN_MS: less than SHUTDOWN_TIMEOUT_MS/.test(err.message),
  );
  assert.throws(() => loadConfig({ SHUTDOWN_TIMEOUT_MS: "999" }), /SHUTDOWN_TIMEOUT_MS: expected/);
  assert.equal(
    loadConfig({ SHUTDOWN_DRAIN_MS: "0", SHUTDOWN_TIMEOUT_MS: "1000" }).shutdownDrainMs,
    0,
  );
});

Deno.test("shutdown settings: the reserve is at most half of what the drain leaves", () => {
  assert.equal(reserveMs({ shutdownDrainMs: 200, shutdownTimeoutMs: 3_000 }), 1_400);
  assert.equal(reserveMs({ shutdownDrainMs: 0, shutdownTimeoutMs: 1_000 }), 500);
  assert.equal(reserveMs({ shutdownDrainMs: 1_000, shutdownTimeoutMs: 60_000 }), 2_000);
});
