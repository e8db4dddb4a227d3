import assert from "node:assert/strict";
import { generateToken } from "../../../server/crypto/random_token.ts";

Deno.test("generateToken returns 32 characters of [A-Za-z0-9] by default", () => {
  for (let i = 0; i < 200; i++) assert.match(generateToken(), /^[A-Za-z0-9]{32}$/);
  assert.match(generateToken(7), /^[A-Za-z0-9]{7}$/);
});

Deno.test("generateToken draws are distinct", () => {
  const seen = new Set(Array.from({ length: 1000 }, () => generateToken()));
  assert.equal(seen.size, 1000);
});

Deno.test("generateToken has no modulo bias: every character is equally likely", () => {
  // 62 * 4000 characters; a chi-square test with 61 degrees of freedom. A modulo-256 sampler
  // over-weights the first 8 characters by 1/31 (about 3%), which this test detects.
  const counts = new Map<string, number>();
  const draws = 62 * 4000;
  const text = generateToken(draws);
  for (const ch of text) counts.set(ch, (counts.get(ch) ?? 0) + 1);
  assert.equal(counts.size, 62);
  const expected = draws / 62;
  let chi = 0;
  for (const n of counts.values()) chi += (n - expected) ** 2 / expected;
  // 99.99th percentile of chi-square(61) is about 112.
  assert.ok(chi < 112, `chi-square ${chi.toFixed(1)} too high: biased output`);
  const firstEight = [..."ABCDEFGH"].reduce((sum, ch) => sum + counts.get(ch)!, 0) / 8;
  const rest = [..."0123456789"].reduce((sum, ch) => sum + counts.get(ch)!, 0) / 10;
  assert.ok(Math.abs(firstEight - rest) / expected < 0.025, "first letters over-represented");
});
