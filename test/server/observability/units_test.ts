/**
 * The parts of observability that need no service: statement names, URL redaction, trace links,
 * the registry's Prometheus text (read back with the npm parser), and, on real databases, the
 * pool's use as db/instrument.ts counts it and the SQLSTATE of notices.
 */
import assert from "node:assert/strict";
import parsePrometheusTextFormat from "parse-prometheus-text-format";
import { instrument, poolUse, statementOf } from "../../../db/instrument.ts";
import { connect } from "../../../db/mod.ts";
import { linkTo, redactUrl } from "../../../server/observability/tracing.ts";
import { redactPath } from "../../../server/http/redact.ts";
import {
  MAX_SERIES,
  OVERFLOW,
  prometheusName,
  Registry,
} from "../../../server/observability/metrics.ts";
import { backends } from "../../helpers/db.ts";
import { waitUntil } from "../../helpers/crm_server.ts";

Deno.test("statementOf: names the operation and what it reads or calls, never values", () => {
  const cases: [string, string, Record<string, string>][] = [
    ["select launch_apply($1::jsonb) as applied", "SELECT launch_apply", {
      "db.stored_procedure.name": "launch_apply",
    }],
    ["\n    select count(*) from callback_events where status = $1", "SELECT callback_events", {
      "db.collection.name": "callback_events",
    }],
    [
      "select * from claimed_callback_events(array(select c.id from claim_callback_events($1)))",
      "SELECT claimed_callback_events",
      { "db.stored_procedure.name": "claimed_callback_events" },
    ],
    ["insert into launches (app_id) values ($1) returning id", "INSERT launches", {
      "db.collection.name": "launches",
    }],
    ["update sessions set status = $1 where id = $2", "UPDATE sessions", {}],
    ["-- why\ndelete from logins where expires_at < now()", "DELETE logins", {}],
    ["select 1", "SELECT", {}],
    ["begin isolation level serializable", "BEGIN", {}],
  ];
  for (const [sql, name, attributes] of cases) {
    const statement = statementOf(sql, "someQuery");
    assert.equal(statement.name, name, sql);
    assert.equal(statement.attributes["db.query.summary"], name);
    assert.equal(statement.attributes["code.function.name"], "someQuery");
    for (const [key, value] of Object.entries(attributes)) {
      assert.equal(statement.attributes[key], value, `${sql}: ${key}`);
    }
    assert.ok(!JSON.stringify(statement).includes("$1"), "no parameter placeholder either");
  }
});

Deno.test("redactUrl: no query, fragment or credentials; reset tokens become …", () => {
  assert.equal(
    redactUrl("https://u:p@portal.example.com:8443/portal/password-reset/abc?next=/x#top"),
    "https://portal.example.com:8443/portal/password-reset/…",
  );
  const token = "A".repeat(43);
  assert.equal(redactUrl(`http://h/admin/x/${token}/y?a=1`), "http://h/admin/x/…/y");
  assert.equal(redactUrl("/portal/sessions/12?launch=3"), "/portal/sessions/12");
});

Deno.test("redactUrl: a plain URL, cut without parsing, answers what the URL parser gives", () => {
  /** The parser's answer: the rule redactUrl applies to any URL that is not plain. */
  const parsed = (url: string) => {
    try {
      const u = new URL(url);
      return `${u.protocol}//${u.host}${redactPath(u.pathname)}`;
    } catch {
      return redactPath(url.split(/[?#]/, 1)[0]);
    }
  };
  const token = "b".repeat(43);
  for (
    const url of [
      "http://127.0.0.1:8000/portal/api/auth/app/crm",
      "http://localhost:38211/api/v1/sessions/12?x=1",
      "https://crm.example.com/hooks/portal#frag",
      `https://portal.example.com:8443/portal/password-reset/${token}`,
      `http://h/admin/x/${token}/y?a=1`,
      "http://h:8080/a;b=c/d:e~f_g-h+i,j",
      // Not plain (the parser normalises them): the slow path answers, with the same rule.
      "HTTP://Example.COM/a",
      "http://example.com:80/a",
      "https://example.com:443/a",
      "http://example.com:0443/a",
      "http://127.1/a",
      "http://example.com/a/./b/../c",
      "http://example.com/a/%2e%2e/b",
      "http://example.com/a b",
      "http://u:p@example.com/a",
      "http://example.com",
      "http://h:65536/a",
      `http://xn--${"a".repeat(40)}/password-reset/x`,
      "http://xn--bcher-kva.example/a",
    ]
  ) assert.equal(redactUrl(url), parsed(url), url);
});

Deno.test("linkTo: a stored W3C traceparent becomes a link; anything else none", () => {
  const tp = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
  assert.deepEqual(linkTo(tp), {
    context: {
      traceId: "0af7651916cd43dd8448eb211c80319c",
      spanId: "b7ad6b7169203331",
      traceFlags: 1,
      isRemote: true,
    },
  });
  assert.equal(linkTo(null), null);
  assert.equal(linkTo("00-00000000000000000000000000000000-b7ad6b7169203331-01"), null);
  assert.equal(linkTo("garbage"), null);
});

Deno.test("metrics registry: Prometheus text that the npm parser reads back", async () => {
  const registry = new Registry();
  const counter = registry.counter({
    name: "test.things",
    unit: "{thing}",
    help: "Things,\nby kind.",
    labels: ["kind"],
  });
  const histogram = registry.histogram({
    name: "test.wait",
    unit: "s",
    help: "Waits.",
    labels: [],
    buckets: [0.1, 1],
  });
  registry.gauge(
    { name: "test.level", unit: "1", help: "Level.", labels: ["at"] },
    () => Promise.resolve([{ labels: { at: "a" }, value: 0.5 }]),
  );
  registry.gauge(
    { name: "test.broken", unit: "1", help: "Fails to read.", labels: [] },
    () => Promise.reject(new Error("database down")),
  );
  // Attributes for OTLP, one unlabelled sum on /metrics; no samples, no line.
  registry.observedCounter(
    {
      name: "test.cpu",
      unit: "s",
      help: "By mode.",
      labels: ["cpu.mode"],
      prometheusTotal: true,
    },
    () =>
      Promise.resolve([
        { labels: { "cpu.mode": "user" }, value: 1.25 },
        { labels: { "cpu.mode": "system" }, value: 0.5 },
      ]),
  );
  registry.gauge(
    { name: "test.none", unit: "1", help: "Nothing.", labels: ["x"], prometheusTotal: true },
    () => Promise.resolve([]),
  );
  counter.add({ kind: 'say "hi"\\now' });
  counter.add({ kind: 'say "hi"\\now' }, 2);
  counter.add({ kind: "plain" });
  for (const v of [0.05, 0.5, 0.7, 3]) histogram.record({}, v);
  const text = await registry.render();
  const parsed = parsePrometheusTextFormat(text);
  assert.deepEqual(parsed.map((f: { name: string }) => f.name), [
    "test_things_total",
    "test_wait_seconds",
    "test_level",
    "test_broken",
    "test_cpu_seconds_total",
    "test_none",
  ]);
  assert.deepEqual(parsed[0].metrics, [
    { labels: { kind: 'say "hi"\\now' }, value: "3" },
    { labels: { kind: "plain" }, value: "1" },
  ]);
  assert.equal(parsed[0].help, "Things,\nby kind.", "the newline escaped and read back");
  assert.deepEqual(parsed[1].metrics, [{
    buckets: { "0.1": "1", "1": "3", "+Inf": "4" },
    count: "4",
    sum: "4.25",
  }]);
  assert.deepEqual(parsed[2].metrics, [{ labels: { at: "a" }, value: "0.5" }]);
  assert.deepEqual(parsed[3].metrics, [], "a gauge that cannot be read is left out, alone");
  assert.deepEqual(parsed[4].metrics, [{ value: "1.75" }], "the samples' sum, no label");
  assert.deepEqual(parsed[5].metrics, []);
  assert.equal(prometheusName({ name: "a.b", unit: "s" }, "counter"), "a_b_seconds_total");
  assert.equal(prometheusName({ name: "a.b", unit: "By" }, "gauge"), "a_b_bytes");
  assert.equal(
    prometheusName(
      { name: "process.cpu.time", unit: "s", prometheus: "process_cpu_seconds_total" },
      "counter",
    ),
    "process_cpu_seconds_total",
  );
});

Deno.test("metrics registry: past MAX_SERIES label sets, the unbounded labels read _overflow", async () => {
  const registry = new Registry();
  // No unbounded label named: all of them overflow.
  const counter = registry.counter({
    name: "test.hits",
    unit: "{hit}",
    help: "Hits by key.",
    labels: ["key", "kind"],
  });
  // The app is the unbounded label: the outcome is kept past the limit.
  const histogram = registry.histogram({
    name: "test.took",
    unit: "s",
    help: "Durations by app and outcome.",
    labels: ["app", "outcome"],
    unbounded: ["app"],
    buckets: [1],
  });
  const extra = 25;
  const logs: Record<string, unknown>[] = [];
  const original = console.log;
  console.log = (line: string) => logs.push(JSON.parse(line));
  try {
    for (let i = 0; i < MAX_SERIES + extra; i++) {
      counter.add({ key: `k${i}`, kind: "a" });
      histogram.record({ app: `app${i}`, outcome: i % 2 ? "ok" : "refused" }, 0.5);
    }
  } finally {
    console.log = original;
  }
  // A series kept before the limit still counts on its own afterwards.
  counter.add({ key: "k0", kind: "a" }, 4);
  const text = await registry.render();
  const parsed = parsePrometheusTextFormat(text);
  const hits = parsed[0].metrics as { labels: Record<string, string>; value: string }[];
  assert.equal(hits.length, MAX_SERIES + 1);
  assert.equal(hits.find((m) => m.labels.key === "k0")?.value, "5");
  assert.deepEqual(hits.find((m) => m.labels.key === OVERFLOW), {
    labels: { key: OVERFLOW, kind: OVERFLOW },
    value: String(extra),
  });
  assert.ok(!hits.some((m) => m.labels.key === `k${MAX_SERIES}`), "the first set past the limit");
  // The npm parser drops a histogram's labels, so its count lines are read from the text.
  const counts: string[] = text.match(/^test_took_seconds_count\{.*$/gm) ?? [];
  assert.equal(counts.length, MAX_SERIES + 2, "one overflow series per outcome");
  const past = (outcome: string) =>
    Array.from({ length: extra }, (_, j) => MAX_SERIES + j)
      .filter((i) => (i % 2 ? "ok" : "refused") === outcome).length;
  for (const outcome of ["ok", "refused"]) {
    assert.ok(
      counts.includes(
        `test_took_seconds_count{app="${OVERFLOW}",outcome="${outcome}"} ${past(outcome)}`,
      ),
      outcome,
    );
  }
  // One warning per instrument, naming it.
  const warnings = logs.filter((l) => l.level === "warn");
  assert.deepEqual(warnings.map((l) => l.instrument), ["test.hits", "test.took"]);
});

for (const backend of backends) {
  Deno.test(`instrument (${backend.name}): the pool's use counts connections and waiters`, async () => {
    const db = await backend.open({ max: 1 });
    const sql = instrument(db.sql);
    try {
      assert.deepEqual(poolUse(sql), { inUse: 0, waiting: 0 });
      assert.equal(poolUse(db.sql), null, "only an instrumented handle is counted");
      let release = () => {};
      const held = new Promise<void>((r) => release = r);
      const transaction = sql.begin(async (tx) => {
        await tx`select 1`;
        await held;
      });
      await waitUntil(() => poolUse(sql)?.inUse === 1, "the transaction holds the connection");
      // One connection, held: a query waits for it.
      const query = sql`select 2 as two`;
      const answered = query.then((rows) => rows[0].two);
      await waitUntil(() => poolUse(sql)?.waiting === 1, "the query waits");
      assert.equal(poolUse(sql)?.inUse, 1);
      release();
      await transaction;
      assert.equal(await answered, 2);
      assert.deepEqual(poolUse(sql), { inUse: 0, waiting: 0 });
      assert.equal(instrument(sql), sql, "instrumenting twice changes nothing");
    } finally {
      await db.close();
    }
  });

  Deno.test(`connect (${backend.name}): notices come with their SQLSTATE`, async () => {
    const db = await backend.open();
    const notices: [string, string | undefined][] = [];
    const dir = await Deno.makeTempDir({ prefix: "pl-notice-" });
    // A second handle on the database (a new embedded one: PGlite serves one process).
    const other = await connect({
      ...(db.url ? { databaseUrl: db.url } : { dataDir: dir }),
      onNotice: (message, code) => notices.push([message, code]),
    });
    try {
      for (let i = 0; i < 2; i++) await other.sql`create table if not exists noticed (id int)`;
      assert.equal(notices.length, 1);
      assert.match(notices[0][0], /already exists, skipping/);
      assert.equal(notices[0][1], "42P07");
    } finally {
      await other.close();
      await db.close();
      await Deno.remove(dir, { recursive: true });
    }
  });
}
