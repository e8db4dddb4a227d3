/**
 * Trace sampling (docs/operations.md, OpenTelemetry): Deno reads OTEL_TRACES_SAMPLER and
 * OTEL_TRACES_SAMPLER_ARG. With `parentbased_traceidratio` at a ratio of 0 a launch exports no
 * span, neither Deno's server span nor the service's own (its queries), while the metrics still
 * count it. A ratio between 0 and 1 keeps that share of traces, chosen by trace id (the
 * OpenTelemetry sampler of that name); this pins that Deno honours the two variables.
 */
import assert from "node:assert/strict";
import { waitUntil } from "../../helpers/crm_server.ts";
import { uniqueId } from "../../helpers/shared.ts";
import {
  exportingTo,
  latestPoints,
  spansOf,
  startObserved,
  startOtlpReceiver,
  uniquePayload,
} from "./fixture.ts";

Deno.test({
  name: "otel: a trace sampler at ratio 0 exports no span, and the metrics still count",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const receiver = startOtlpReceiver();
    const observed = await startObserved({
      ...exportingTo(receiver),
      OTEL_TRACES_SAMPLER: "parentbased_traceidratio",
      OTEL_TRACES_SAMPLER_ARG: "0",
    });
    try {
      const app = await observed.createApp();
      const launched = await observed.launch(app, uniquePayload(uniqueId("SMP")));
      assert.equal(launched.status, 200, await launched.clone().text());
      await launched.body?.cancel();
      // The launch is counted in an export of the metrics ...
      await waitUntil(
        () =>
          Promise.resolve(
            latestPoints(receiver, "portal.launches")?.some((p) =>
              p.attributes.app === app.appName && p.attributes.outcome === "ok" && p.value === 1
            ) ?? false,
          ),
        "the launch counted in the exported metrics",
      );
      // ... and two more exports later (400 ms, four span batch delays), no span has come.
      const exports = receiver.metrics.length;
      await waitUntil(
        () => Promise.resolve(receiver.metrics.length >= exports + 2),
        "two more metric exports",
      );
      assert.deepEqual(spansOf(receiver).map((s) => s.name), []);
    } finally {
      await observed.stop();
      await receiver.close();
    }
  },
});
