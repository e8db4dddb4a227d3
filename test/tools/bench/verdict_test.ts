import assert from "node:assert/strict";
import { type Figures, remoteVerdictLines, verdictLines } from "../../../tools/bench/verdict.ts";

/** A run that meets every target. */
const PASSING: Figures = {
  launch16P99Ms: 40,
  launch64Rps: 1000,
  databaseLimit64Tps: 1200,
  tpcbTps: 1200,
  tpcbEndTps: 1150,
  selectOnlyTps: 7000,
  tpcbPostgresMs: 1.5,
  launchPostgresMs: 1.8,
  launchServerMs: 0.4,
  eventServerMs: 0.12,
  getOneRps: 4500,
  getPageRps: 1200,
  getPageP99Ms: 300,
  tokenRps: 3700,
  drain: { eventsPerSecond: 2500, count: 100_000, exact: true },
  launchAllCoresRps: 1000,
  getAllCoresRps: 4600,
  launchObservedRps: 950,
  getObservedRps: 4100,
  rssObservedMb: 160,
  rssMb: 140,
  remoteFirstFrameP95Ms: 900,
  remoteSignalingP99Ms: 30,
};

function lineOf(lines: string[], target: string): string {
  const found = lines.find((l) => l.includes(target));
  assert.ok(found, `no line for ${target} in\n${lines.join("\n")}`);
  return found;
}

Deno.test("verdictLines says ok for every target a passing run meets", () => {
  const lines = verdictLines(PASSING);
  assert.equal(lines.length, 19);
  for (const l of lines) assert.match(l, /^ok /);
});

Deno.test("verdictLines starts with whether the machine kept its speed through the run", () => {
  assert.match(
    verdictLines(PASSING)[0],
    /^ok {3}machine steady: .* 0\.96 × \(1150\/s vs 1200\/s\)$/,
  );
  // TPC-B at the end 20 % slower, or 20 % faster: the ratios are not comparable.
  for (const end of [960, 1440]) {
    const first = verdictLines({ ...PASSING, tpcbEndTps: end })[0];
    assert.match(first, /^FAIL machine steady: TPC-B at the end within 15 % of the start/);
    assert.match(first, /the ratios below are not comparable$/);
  }
  assert.match(verdictLines({ ...PASSING, tpcbEndTps: undefined })[0], /^n\/a {2}machine steady/);
});

Deno.test("verdictLines fails the database-limit ratio below 0.8 and shows the figures", () => {
  const l = lineOf(
    verdictLines({ ...PASSING, databaseLimit64Tps: 1500 }),
    "launch@64 ≥ 0.8 × database limit",
  );
  assert.match(l, /^FAIL /);
  assert.match(l, /0\.67 × \(1000\/s vs 1500\/s\)/);
});

Deno.test("verdictLines fails a launch p99 at 16 connections above 50 ms", () => {
  assert.match(
    lineOf(verdictLines({ ...PASSING, launch16P99Ms: 103 }), "launch p99@16"),
    /^FAIL .*103 ms/,
  );
});

Deno.test("verdictLines takes the callback's delivery off the launch's server CPU", () => {
  const lines = verdictLines({ ...PASSING, launchServerMs: 0.81, eventServerMs: 0.26 });
  assert.match(lineOf(lines, "server CPU per launch"), /^FAIL .*0\.55 ms/);
  assert.match(lineOf(lines, "per delivered callback event"), /^FAIL .*0\.26 ms/);
  const ownLine = (more: Partial<Figures>) =>
    lineOf(
      verdictLines({ ...PASSING, launchServerMs: 0.81, eventServerMs: 0.26, ...more }),
      "server CPU per launch",
    );
  // Measured on launches with no callback URL, that figure is the launch's own.
  assert.match(
    ownLine({ launchOwnServerMs: 0.28 }),
    /^ok .*0\.28 ms \(launches with no callback URL; 0\.81 ms with their callbacks delivered\)$/,
  );
  // With baseline C measured, the line splits the launch's own CPU into the floor and the rest.
  assert.match(
    ownLine({ launchFloorServerMs: 0.09 }),
    /^FAIL .*0\.55 ms \(0\.81 ms less 0\.26 ms for its callback event\); the runtime's floor \(baseline C\) 0\.09 ms; the service's work 0\.46 ms$/,
  );
  // Held to the launch's rate too, the floor the service's work is measured over is that one.
  assert.match(
    ownLine({
      launchOwnServerMs: 0.77,
      launchOwnRps: 650,
      launchFloorServerMs: 0.08,
      launchFloorRps: 12000,
      launchFloorAtRate: { serverMs: 0.23, rps: 640 },
    }),
    /^FAIL .*0\.77 ms \(launches with no callback URL; .*\); the runtime's floor \(baseline C\) 0\.08 ms at 12000\/s, 0\.23 ms at 640\/s \(the launch's 650\/s\); the service's work 0\.54 ms, where the target leaves it 0\.07 ms$/,
  );
});

Deno.test("verdictLines fails the list page on its p99 even at the rate target", () => {
  assert.match(
    lineOf(verdictLines({ ...PASSING, getPageP99Ms: 400 }), "list page of 50"),
    /^FAIL .*p99 400 ms/,
  );
});

Deno.test("verdictLines fails a drain that lost or doubled events, whatever its rate", () => {
  const l = lineOf(
    verdictLines({ ...PASSING, drain: { eventsPerSecond: 9000, count: 100_000, exact: false } }),
    "callback drain",
  );
  assert.match(l, /^FAIL .*LOST OR DOUBLED/);
});

Deno.test("verdictLines says n/a for a drain of fewer events than the target names", () => {
  const l = lineOf(
    verdictLines({ ...PASSING, drain: { eventsPerSecond: 2500, count: 10_000, exact: true } }),
    "callback drain",
  );
  assert.match(l, /^n\/a .*10000 events each once/);
});

Deno.test("verdictLines says n/a, not ok, for every figure the run did not measure", () => {
  const lines = verdictLines({});
  assert.equal(lines.length, 19);
  for (const l of lines) assert.match(l, /^n\/a .*not measured$/);
});

Deno.test("verdictLines fails observability losing more than 10 % or over its memory cap", () => {
  const lines = verdictLines({ ...PASSING, launchObservedRps: 850, rssObservedMb: 180 });
  assert.match(lineOf(lines, "observability on: launch"), /^FAIL .*0\.85 ×/);
  assert.match(lineOf(lines, "observability on: GET"), /^ok /);
  assert.match(lineOf(lines, "RSS with observability on"), /^FAIL .*180 MB/);
});

Deno.test("verdictLines fails an all-cores mode slower than one process", () => {
  assert.match(
    lineOf(
      verdictLines({ ...PASSING, launchAllCoresRps: 477, launch64Rps: 667 }),
      "all-cores launch",
    ),
    /^FAIL .*0\.72 ×/,
  );
});

Deno.test("verdictLines shows the database limit's best run beside the 64-connection one", () => {
  const l = lineOf(
    verdictLines({ ...PASSING, databaseLimitBest: { tps: 1250, connections: 10 } }),
    "database limit",
  );
  assert.match(l, /^ok .*0\.83 × \(1000\/s vs 1200\/s\); 0\.80 × its best run \(1250\/s at 10 /);
});

Deno.test("verdictLines fails screen sharing over 2 s to the first frame or 50 ms of signaling", () => {
  const lines = verdictLines({
    ...PASSING,
    remoteFirstFrameP95Ms: 2400,
    remoteSignalingP99Ms: 73,
  });
  assert.match(lineOf(lines, "click to first frame p95"), /^FAIL .*2400 ms/);
  assert.match(lineOf(lines, "signaling p99"), /^FAIL .*73 ms/);
});

Deno.test("remoteVerdictLines is the screen-sharing lines alone, as bench-remote prints them", () => {
  const lines = remoteVerdictLines({ remoteFirstFrameP95Ms: 900 });
  assert.equal(lines.length, 2);
  assert.match(lineOf(lines, "click to first frame"), /^ok .*900 ms/);
  assert.match(lineOf(lines, "signaling p99"), /^n\/a .*not measured$/);
});

Deno.test("remoteVerdictLines fails runs that never showed a frame, not n/a", () => {
  const l = lineOf(remoteVerdictLines({ remoteFirstFrameP95Ms: Infinity }), "first frame");
  assert.match(l, /^FAIL .*no frame/);
});

Deno.test("verdictLines compares all cores and observability with the paired single process", () => {
  // The single process measured right before each variant wins over its earlier row.
  const lines = verdictLines({
    ...PASSING,
    launch64Rps: 1000,
    launchAllCoresRps: 800,
    launchOneBeforeAllCoresRps: 780,
    getOneRps: 4500,
    getObservedRps: 4100,
    getOffBeforeObservedRps: 5000,
  });
  assert.match(lineOf(lines, "all-cores launch"), /^ok .* 1\.03 × \(800\/s vs 780\/s\)$/);
  assert.match(lineOf(lines, "observability on: GET"), /^FAIL .* 0\.82 × \(4100\/s vs 5000\/s\)$/);
  // Without a paired run, the earlier single-process rows are the base.
  const alone = verdictLines({ ...PASSING, launchAllCoresRps: 800 });
  assert.match(lineOf(alone, "all-cores launch"), /^FAIL .* 0\.80 × \(800\/s vs 1000\/s\)$/);
});

Deno.test("verdictLines shows what PostgreSQL's own CPU allows beside the baseline ratios", () => {
  const run: Figures = {
    ...PASSING,
    cores: 2,
    tpcbTps: 2832,
    tpcbEndTps: 2832,
    selectOnlyTps: 49465,
    getOneRps: 5438,
    getOnePostgresMs: 0.11,
    getPageRps: 837,
    getPagePostgresMs: 1.51,
    tokenRps: 5751,
    tokenPostgresMs: 0.11,
    launchPostgresMs: 1.4,
    tpcbPostgresMs: 0.55,
    eventPostgresMs: 0.11,
  };
  const lines = verdictLines(run);
  // 2 CPUs / 0.11 ms = 18,182/s, 0.37 × select-only: below 0.6 while a read costs that much.
  assert.match(
    lineOf(lines, "GET one session"),
    /^FAIL .*; PostgreSQL alone \(0\.11 ms of its CPU each, 2 logical CPUs\) allows at most 0\.37 × \(18182\/s\): out of reach at this PostgreSQL cost$/,
  );
  assert.match(lineOf(lines, "list page"), /allows at most 0\.47 × \(1325\/s\): out of reach/);
  assert.match(lineOf(lines, "launch@64 ≥ 0.75 × TPC-B"), /at most 0\.50 × \(1429\/s\): out of/);
  // Token issuance: the database would allow 6.42 ×, so the shortfall is the service's.
  const token = lineOf(lines, "token issuance");
  assert.match(token, /^FAIL .*allows at most 6\.42 × \(18182\/s\)$/);
  assert.doesNotMatch(token, /out of reach/);
  assert.match(lineOf(lines, "callback drain"), /allows at most 6\.42 ×/);
  // Without the cores or the CPU figure the lines carry no ceiling.
  for (const l of verdictLines({ ...run, cores: undefined })) assert.doesNotMatch(l, /alone/);
  assert.doesNotMatch(
    lineOf(verdictLines({ ...run, getOnePostgresMs: undefined }), "GET one"),
    /alone/,
  );
  // A case not measured stays "n/a … not measured", with no ceiling after it.
  assert.match(
    lineOf(verdictLines({ ...run, getOneRps: undefined }), "GET one"),
    /^n\/a .*: not measured$/,
  );
});

Deno.test("verdictLines says what the server and PostgreSQL together allow, and what that needs", () => {
  // The ninth and tenth runs' shape: a fast PostgreSQL, the service's CPU per request beside it.
  const run: Figures = {
    ...PASSING,
    cores: 2,
    tpcbTps: 4803,
    tpcbEndTps: 4803,
    tokenRps: 8980,
    tokenPostgresMs: 0.06,
    tokenServerMs: 0.1,
    drain: { eventsPerSecond: 7654, count: 100_000, exact: true },
    eventPostgresMs: 0.08,
    eventServerMs: 0.08,
  };
  const lines = verdictLines(run);
  // 2 CPUs / 0.16 ms = 12,500/s = 2.60 × TPC-B, short of 3 ×: the server's 0.10 ms would have to
  // be 2000 / (3 × 4803) − 0.06 = 0.079 ms.
  assert.match(
    lineOf(lines, "token issuance"),
    /^FAIL .*allows at most 6\.94 × \(33333\/s\); with the server's 0\.100 ms, at most 2\.60 × \(12500\/s\): out of reach unless the server's CPU each drops to 0\.079 ms$/,
  );
  // The drain: both together allow 2.60 ×, above its 2 ×: the shortfall is waiting, not CPU.
  assert.match(
    lineOf(lines, "callback drain"),
    /^FAIL .*with the server's 0\.080 ms, at most 2\.60 × \(12500\/s\): their CPU would allow the target \(the load generator's not counted\); the rest is waiting$/,
  );
  // With the receiver's CPU measured, it is counted: 2 CPUs / 0.20 ms = 10,000/s = 2.08 ×.
  assert.match(
    lineOf(verdictLines({ ...run, eventReceiverMs: 0.04 }), "callback drain"),
    /^FAIL .*with the server's 0\.080 ms and the receiver's 0\.040 ms, at most 2\.08 × \(10000\/s\): their CPU would allow the target; the rest is waiting$/,
  );
  // ... and named in what the server would need when all three are over the target:
  // 2000 / (2 × 4803) − 0.08 − 0.06 = 0.068 ms.
  assert.match(
    lineOf(verdictLines({ ...run, eventReceiverMs: 0.06 }), "callback drain"),
    /the receiver's 0\.060 ms, at most 1\.89 × \(9091\/s\): out of reach unless the server's CPU each drops to 0\.068 ms$/,
  );
  // A case that meets its target gets no server part; one PostgreSQL alone barely allows is out of
  // reach whatever the server does.
  const met = lineOf(verdictLines({ ...run, tokenRps: 15_000 }), "token issuance");
  assert.match(met, /^ok .*allows at most 6\.94 × \(33333\/s\)$/);
  assert.match(
    lineOf(verdictLines({ ...run, tokenPostgresMs: 0.1387 }), "token issuance"),
    /: out of reach, even with no server CPU$/,
  );
  // Out of reach for PostgreSQL alone: the server's share is not worth naming.
  const slow = lineOf(verdictLines({ ...run, tokenPostgresMs: 0.5 }), "token issuance");
  assert.match(slow, /out of reach at this PostgreSQL cost$/);
  assert.doesNotMatch(slow, /server's/);
});
