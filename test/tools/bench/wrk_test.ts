import assert from "node:assert/strict";
import { parseWrk, renderRows, renderTable, wrkRow } from "../../../tools/bench/wrk.ts";

const SAMPLE = `Running 3s test @ http://127.0.0.1:8080/
  2 threads and 64 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency     1.20ms  400.00us  12.00ms   90.00%
    Req/Sec    25.00k     1.00k   28.00k    70.00%
  Latency Distribution
     50%  850.00us
     75%    1.10ms
     90%    1.50ms
     99%    2.10s
  150000 requests in 3.00s, 20.00MB read
  Socket errors: connect 0, read 2, write 0, timeout 1
  Non-2xx or 3xx responses: 7
Requests/sec:  50000.12
Transfer/sec:      6.67MB
`;

Deno.test("parseWrk reads req/s, percentiles in any unit, non-2xx and socket errors", () => {
  const r = parseWrk(SAMPLE, "case", 64);
  assert.equal(r.requestsPerSecond, 50000.12);
  assert.equal(r.p50Ms, 0.85);
  assert.equal(r.p99Ms, 2100);
  assert.equal(r.non2xx, 7);
  assert.equal(r.errors, 3);
});

Deno.test("parseWrk refuses output without results", () => {
  assert.throws(() => parseWrk("unable to connect", "case", 1), /cannot parse wrk output/);
});

Deno.test("renderTable computes ratios against the named baseline", () => {
  const base = {
    name: "hello",
    connections: 64,
    requestsPerSecond: 1000,
    p50Ms: 1,
    p99Ms: 2,
    non2xx: 0,
    errors: 0,
  };
  const table = renderTable([base, { ...base, name: "api", requestsPerSecond: 450 }], {
    api: ["hello", "hello-world"],
  });
  assert.match(table, /\| api \| 64 \| 450 \| 1\.00 \| 2\.00 \| 0 \| 0 \| 0\.45 × hello-world \|/);
});

Deno.test("renderRows shows wrk rows, pgbench rows and notes, with dashes for the missing", () => {
  const table = renderRows([
    wrkRow(parseWrk(SAMPLE, "hello", 64)),
    { name: "pgbench TPC-B", connections: 64, rate: 2500.4, note: "avg latency 25.6 ms" },
    { name: "peak RSS", note: "150 MB" },
  ]);
  const lines = table.split("\n");
  assert.equal(lines.length, 5);
  assert.equal(lines[2], "| hello | 64 | 50000 | 0.85 | 2100.00 | 7 | 3 |  |");
  assert.equal(lines[3], "| pgbench TPC-B | 64 | 2500 | – | – | – | – | avg latency 25.6 ms |");
  assert.equal(lines[4], "| peak RSS | – | – | – | – | – | – | 150 MB |");
});
