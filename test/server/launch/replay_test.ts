/**
 * Replay protection: issuedAt within the app's window, every signed request single-use (its
 * nonce, or its signature), re-entry for the browser that launched it, per-app policies.
 */
import assert from "node:assert/strict";
import { backends } from "../../helpers/db.ts";
import type { Json } from "../../helpers/payload.ts";
import { createTestApp } from "../../helpers/launch.ts";
import { uniqueId } from "../../helpers/shared.ts";
import { signPayload } from "../../../server/launch/signed_request.ts";
import { delta, fixtureTest, freshPayload, type LaunchFixture, launchFixtures } from "./fixture.ts";

const fixtures = launchFixtures(backends);
const now = () => Math.floor(Date.now() / 1000);

/** A payload with the given freshness fields, signed exactly as given. */
function signed(f: LaunchFixture, fields: Json, key = f.app.apiKey): Promise<string> {
  return signPayload(JSON.stringify({ ...freshPayload(), ...fields }), key);
}

async function post(f: LaunchFixture, raw: string, headers: Record<string, string> = {}) {
  return await f.launch(null, { raw, json: !headers.Accept, ...headers });
}

/** An app of its own with `policy`, so tests never change the shared app's. */
async function appWith(f: LaunchFixture, policy: string, maxAge = 300) {
  const app = await createTestApp(f.svc, f.adminToken, uniqueId("rp"), {
    replayProtection: policy,
    maxAgeSeconds: maxAge,
  });
  const send = async (body: Json) => {
    const res = await f.svc.request(`/portal/api/auth/app/${app.appName}`, {
      method: "POST",
      headers: { Accept: "application/json" },
      body: new URLSearchParams({
        signed_request: await signPayload(JSON.stringify(body), app.apiKey),
      }),
    });
    return { status: res.status, body: await res.json() };
  };
  return { app, send };
}

for (const backend of backends) {
  const test = fixtureTest(fixtures, backend, "replay ");

  test("the same signed request twice: the second is refused and writes nothing", async (f) => {
    const raw = await signed(f, { issuedAt: now(), nonce: crypto.randomUUID() });
    const first = await post(f, raw);
    assert.equal(first.status, 200);
    await first.body?.cancel();
    const before = await f.counts();
    const second = await post(f, raw);
    assert.equal(second.status, 401);
    const body = await second.json();
    assert.equal(body.code, "launch_replayed");
    assert.match(body.message, /newly signed request/);
    assert.deepEqual(delta(before, await f.counts()), { launches: 1 }, "only the log record");
  });

  test("without a nonce (optional) the signature's bytes are the key, however spelled", async (f) => {
    const { app } = await appWith(f, "optional");
    const raw = await signPayload(
      JSON.stringify({ ...freshPayload(), issuedAt: now() }),
      app.apiKey,
    );
    const dot = raw.indexOf(".");
    const [signature, rest] = [raw.slice(0, dot), raw.slice(dot)];
    const urlSafe = signature.replaceAll("+", "-").replaceAll("/", "_");
    const spellings = [
      signature,
      signature.replace(/=+$/, ""),
      urlSafe,
      urlSafe.replace(/=+$/, ""),
    ];
    const codes: (string | number)[] = [];
    for (const spelled of spellings) {
      const res = await f.svc.request(`/portal/api/auth/app/${app.appName}`, {
        method: "POST",
        headers: { Accept: "application/json" },
        body: new URLSearchParams({ signed_request: spelled + rest }),
      });
      codes.push(res.status === 200 ? 200 : (await res.json()).code);
      if (!res.bodyUsed) await res.body?.cancel();
    }
    assert.deepEqual(codes, [200, "launch_replayed", "launch_replayed", "launch_replayed"]);
  });

  test("under required, issuedAt without a nonce is 400 naming the nonce", async (f) => {
    const { send } = await appWith(f, "required");
    const { status, body } = await send({ ...freshPayload(), issuedAt: now() });
    assert.equal(status, 400);
    assert.equal(body.code, "nonce_required");
    assert.deepEqual(body.errors.map((e: Json) => e.path), ["nonce"]);
  });

  test("the browser that launched it re-enters the same session (no new login)", async (f) => {
    const raw = await signed(f, { issuedAt: now(), nonce: crypto.randomUUID() });
    const html = { Accept: "text/html,application/xhtml+xml" };
    const first = await f.svc.request("/portal/api/auth/app/crm", {
      method: "POST",
      headers: html,
      body: new URLSearchParams({ signed_request: raw }),
    });
    assert.equal(first.status, 303);
    const cookie = first.headers.get("Set-Cookie")!.split(";")[0];
    const before = await f.counts();
    const again = await f.svc.request("/portal/api/auth/app/crm", {
      method: "POST",
      headers: { ...html, Cookie: cookie },
      body: new URLSearchParams({ signed_request: raw }),
    });
    assert.equal(again.status, 303);
    assert.equal(again.headers.get("Location"), first.headers.get("Location"));
    assert.equal(again.headers.get("Set-Cookie"), null, "no new login");
    const d = delta(before, await f.counts());
    assert.equal(d.logins, undefined);
    assert.equal(d.sessions, undefined);
    // Another browser (no cookie, or another login's) is refused.
    const other = await f.svc.request("/portal/api/auth/app/crm", {
      method: "POST",
      headers: { ...html, Cookie: "portal_login=someone-else" },
      body: new URLSearchParams({ signed_request: raw }),
    });
    assert.equal(other.status, 401);
    assert.match(await other.text(), /already used/);
  });

  test("issuedAt older than the window is expired; more than 60 s ahead not yet valid", async (f) => {
    const cases: [number, number, string | null][] = [
      [now() - 301, 401, "launch_expired"],
      [now() - 290, 200, null],
      [now() + 90, 401, "launch_not_yet_valid"],
      [now() + 50, 200, null],
      [Date.now() - 10_000, 200, null], // milliseconds
      [Date.now() - 400_000, 401, "launch_expired"],
    ];
    for (const [issuedAt, status, code] of cases) {
      const res = await post(f, await signed(f, { issuedAt, nonce: crypto.randomUUID() }));
      const body = await res.json();
      assert.equal(res.status, status, `${issuedAt}: ${JSON.stringify(body)}`);
      if (code) {
        assert.equal(body.code, code);
        assert.ok(body.message.length > 40, "the message says what to do");
      }
    }
  });

  test("required: a request without issuedAt is refused, saying what to add", async (f) => {
    const res = await post(f, await signPayload(JSON.stringify(freshPayload()), f.app.apiKey));
    assert.equal(res.status, 401);
    const body = await res.json();
    assert.equal(body.code, "issued_at_required");
    assert.match(body.message, /issuedAt.*nonce/);
  });

  test("optional: accepted without issuedAt and logged unprotected; checked when given", async (f) => {
    const { send } = await appWith(f, "optional");
    const legacy = await send(freshPayload());
    assert.equal(legacy.status, 200);
    const [row] = await f.svc.db.sql`select protection, key_used from launches
      where id = ${legacy.body.launchId}`;
    assert.deepEqual([row.protection, row.keyUsed], ["unprotected", "current"]);
    const stale = await send({ ...freshPayload(), issuedAt: now() - 1000 });
    assert.equal(stale.body.code, "launch_expired");
    const fresh = await send({ ...freshPayload(), issuedAt: now(), nonce: crypto.randomUUID() });
    assert.equal(fresh.status, 200);
    const [p] = await f.svc.db.sql`select protection from launches
      where id = ${fresh.body.launchId}`;
    assert.equal(p.protection, "protected");
  });

  test("off: no checks, a request may be sent again", async (f) => {
    const { send } = await appWith(f, "off");
    const body = { ...freshPayload(), issuedAt: now() - 100_000, nonce: "a-nonce-used-twice-0001" };
    assert.equal((await send(body)).status, 200);
    assert.equal((await send(body)).status, 200);
  });

  test("the app's maxAgeSeconds is its window", async (f) => {
    const { send } = await appWith(f, "required", 30);
    const old = await send({ ...freshPayload(), issuedAt: now() - 45, nonce: crypto.randomUUID() });
    assert.equal(old.body.code, "launch_expired");
  });

  test("a refused launch consumes nothing; the dry run neither", async (f) => {
    const raw = await signed(f, { issuedAt: now(), nonce: crypto.randomUUID() });
    const dry = await f.launch(null, { raw, path: "/portal/api/auth/app/crm/validate" });
    assert.equal(dry.status, 200);
    await dry.body?.cancel();
    await f.svc.api("PUT", "/api/v1/admin/field-settings", f.adminToken, {
      session: { externalSessionId: false },
      consumer: { externalCustomerId: true },
    });
    try {
      const refused = await post(f, raw);
      assert.equal(refused.status, 409);
      await refused.body?.cancel();
    } finally {
      await f.svc.api("PUT", "/api/v1/admin/field-settings", f.adminToken, {
        session: { externalSessionId: true },
        consumer: { externalCustomerId: true },
      });
    }
    const ok = await post(f, raw);
    assert.equal(ok.status, 200, "the same request, once the cause is fixed");
    await ok.body?.cancel();
  });

  test("10 simultaneous copies of one request: exactly one launches", async (f) => {
    const raw = await signed(f, { issuedAt: now(), nonce: crypto.randomUUID() });
    const answers = await Promise.all(Array.from({ length: 10 }, () => post(f, raw)));
    const statuses = answers.map((r) => r.status).sort();
    await Promise.all(answers.map((r) => r.body?.cancel()));
    assert.deepEqual(statuses, [200, ...Array(9).fill(401)]);
  });

  test("issuedAt and nonce are part of the signed JSON: altering them breaks the HMAC", async (f) => {
    const raw = await signed(f, { issuedAt: now(), nonce: "original-nonce-000001" });
    const [sig, encoded] = raw.split(".");
    const text = new TextDecoder().decode(Uint8Array.from(atob(encoded), (ch) => ch.charCodeAt(0)))
      .replace("original-nonce-000001", "different-nonce-00001");
    const forged = `${sig}.${btoa(String.fromCharCode(...new TextEncoder().encode(text)))}`;
    const res = await post(f, forged);
    assert.equal(res.status, 401);
    assert.equal((await res.json()).code, "invalid_signature");
  });

  test("a malformed nonce or issuedAt is a 400 naming the field", async (f) => {
    for (
      const [fields, path] of [
        [{ issuedAt: now(), nonce: "short" }, "nonce"],
        [{ issuedAt: "yesterday", nonce: crypto.randomUUID() }, "issuedAt"],
      ] as [Json, string][]
    ) {
      const res = await post(f, await signed(f, fields));
      const body = await res.json();
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.deepEqual(body.errors.map((e: Json) => e.path), [path]);
    }
  });
}
