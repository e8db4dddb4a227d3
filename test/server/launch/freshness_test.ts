/** The launch's freshness step (checkFreshness), called alone. */
import assert from "node:assert/strict";
import { checkFreshness } from "../../../server/launch/freshness.ts";
import { AppError } from "../../../server/http/errors.ts";

const now = new Date("2026-01-01T12:00:00Z");
const secondsAgo = (s: number) => new Date(now.getTime() - s * 1000);
const required = { replayProtection: "required", maxAgeSeconds: 300 } as const;

/** The code of the refusal `fn` throws. */
function refusalCode(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    if (err instanceof AppError && err.status === 401) return err.code;
    throw err;
  }
  throw new Error("no refusal");
}

Deno.test("checkFreshness of an app with replay protection off stores nothing", () => {
  const policy = { replayProtection: "off", maxAgeSeconds: 300 } as const;
  const fields = { issuedAt: secondsAgo(10_000), nonce: "n1" };
  assert.deepEqual(checkFreshness(policy, fields, "sig", now), { protection: "off", replay: null });
});

Deno.test("checkFreshness lets an optional app launch unprotected without issuedAt", () => {
  const policy = { replayProtection: "optional", maxAgeSeconds: 300 } as const;
  assert.deepEqual(checkFreshness(policy, { issuedAt: null, nonce: null }, "sig", now), {
    protection: "unprotected",
    replay: null,
  });
});

Deno.test("checkFreshness refuses a request without issuedAt when the app requires it", () => {
  const fields = { issuedAt: null, nonce: "n1" };
  assert.equal(
    refusalCode(() => checkFreshness(required, fields, "sig", now)),
    "issued_at_required",
  );
});

Deno.test("checkFreshness refuses a request older than the app's window", () => {
  const fields = { issuedAt: secondsAgo(301), nonce: "n1" };
  assert.equal(refusalCode(() => checkFreshness(required, fields, "sig", now)), "launch_expired");
});

Deno.test("checkFreshness refuses a request issued too far in the future", () => {
  const fields = { issuedAt: secondsAgo(-61), nonce: "n1" };
  assert.equal(
    refusalCode(() => checkFreshness(required, fields, "sig", now)),
    "launch_not_yet_valid",
  );
});

Deno.test("checkFreshness keeps the nonce until no copy of the request can be fresh", () => {
  const issuedAt = secondsAgo(10);
  assert.deepEqual(checkFreshness(required, { issuedAt, nonce: "n1" }, "sig", now), {
    protection: "protected",
    replay: { key: "n1", expiresAt: new Date(issuedAt.getTime() + 360_000) },
  });
});

Deno.test("checkFreshness uses the signature as the replay key of a request without a nonce", () => {
  const fields = { issuedAt: secondsAgo(10), nonce: null };
  const optional = { ...required, replayProtection: "optional" as const };
  assert.equal(checkFreshness(optional, fields, "69b7", now).replay?.key, "sig:69b7");
});

Deno.test("checkFreshness requires a nonce beside issuedAt under the required policy", () => {
  const fields = { issuedAt: secondsAgo(10), nonce: null };
  assert.throws(() => checkFreshness(required, fields, "69b7", now), (err: AppError) => {
    assert.equal(err.status, 400);
    assert.equal(err.code, "nonce_required");
    assert.deepEqual(err.errors?.map((e) => e.path), ["nonce"]);
    return true;
  });
});
