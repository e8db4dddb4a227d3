import assert from "node:assert/strict";
import {
  frameAncestorProblem,
  frameAncestorsCsp,
  originAllowed,
} from "../../../server/http/frame_ancestors.ts";

Deno.test("frame ancestors: https origins and loopback http are allowed", async () => {
  for (
    const ok of [
      "https://crm.example.com",
      "https://crm.example.com:8443",
      "https://*.example.com",
      "https://*.eu.example.co.uk",
      "http://localhost:8001",
      "http://127.0.0.1:8001",
      "http://[::1]:3000",
      "https://localhost",
    ]
  ) {
    assert.equal(await frameAncestorProblem(ok), null, ok);
  }
});

Deno.test("frame ancestors: plain http, paths, bare or public-suffix wildcards are refused", async () => {
  const cases: [string, RegExp][] = [
    ["http://crm.example.com", /https/],
    ["http://*.localhost", /https/],
    ["https://crm.example.com/path", /no path/],
    ["https://*.com", /two labels/],
    ["https://*.co.uk", /public suffix co\.uk/],
    ["https://*.github.io", /public suffix github\.io/],
    ["https://*.*.example.com", /origin/],
    ["crm.example.com", /origin/],
    ["https://crm.example.com:99999", /port/],
  ];
  for (const [entry, why] of cases) {
    const problem = await frameAncestorProblem(entry);
    assert.ok(problem, entry);
    assert.match(problem, why, entry);
  }
});

Deno.test("frame ancestors: CSP and origin matching", () => {
  assert.equal(
    frameAncestorsCsp(["https://a.example.com"]),
    "frame-ancestors 'self' https://a.example.com",
  );
  assert.ok(originAllowed("https://x.example.com", ["https://*.example.com"]));
  assert.ok(!originAllowed("https://example.com.evil.org", ["https://*.example.com"]));
  assert.ok(!originAllowed("http://x.example.com", ["https://*.example.com"]));
});
