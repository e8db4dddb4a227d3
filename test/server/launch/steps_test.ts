/**
 * The launch steps (server/launch/steps.ts), each called alone: with small fakes, or on the launch
 * tests' fixture for the steps that read or write the database.
 */
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { Hono } from "hono";
import type { Context } from "hono";
import { loadConfig } from "../../../server/config.ts";
import type { AppEnv } from "../../../server/http/env.ts";
import { AppError, handleError } from "../../../server/http/errors.ts";
import { FailureLimiter } from "../../../server/http/failure_rate.ts";
import { setLogLevel } from "../../../server/log.ts";
import { signPayload } from "../../../server/launch/signed_request.ts";
import { freshnessFields, SIGNED_REQUEST_FIELD } from "../../../server/launch/contract.ts";
import { type LaunchWarning, parseLaunchPayload } from "../../../server/launch/payload.ts";
import { type FreshnessOutcome, replayed } from "../../../server/launch/freshness.ts";
import { launchRoutes } from "../../../server/launch/routes.ts";
import {
  answerFailure,
  checkOrigin,
  countFailure,
  countUnknownApp,
  findApp,
  landed,
  limitFailures,
  mapPayload,
  planFlow,
  readSignedRequest,
  recordFailure,
  reenterSession,
  runFlow,
  sealCrmToken,
  verifyRequest,
} from "../../../server/launch/steps.ts";
import { backends } from "../../helpers/db.ts";
import { createTestApp } from "../../helpers/launch.ts";
import { uniqueId } from "../../helpers/shared.ts";
import { delta, fixtureTest, freshPayload, type LaunchFixture, launchFixtures } from "./fixture.ts";

const config = loadConfig({ PUBLIC_URL: "http://portal.test" });

Deno.test("step checkOrigin: the app's origins and the portal's pass, a foreign one is 403", () => {
  const app = {
    id: 1,
    appName: "crm",
    enabled: true,
    authType: "signed_request",
    apiKeySealed: null,
    consumerSecretSealed: null,
    apiKeyPreviousSealed: null,
    consumerSecretPreviousSealed: null,
    previousKeyExpiresAt: null,
    frameAncestors: ["https://host.test", "https://*.crm.test"],
    replayProtection: "required",
    maxAgeSeconds: 300,
    implementor: "default",
  } as const;
  const allowed = [
    undefined,
    "null",
    "https://host.test",
    "https://eu.crm.test",
    "http://portal.test",
  ];
  for (const origin of allowed) {
    checkOrigin(config, { ...app, frameAncestors: [...app.frameAncestors] }, origin);
  }
  // An app with no allowed origins is not checked (it has nothing to check against).
  checkOrigin(config, { ...app, frameAncestors: [] }, "https://evil.test");
  for (const origin of ["https://evil.test", "http://host.test", "https://host.test.evil.test"]) {
    assert.throws(
      () => checkOrigin(config, { ...app, frameAncestors: [...app.frameAncestors] }, origin),
      (err: unknown) =>
        err instanceof AppError && err.status === 403 && err.code === "origin_not_allowed" &&
        err.message.includes(origin),
      origin,
    );
  }
});

/** Answers one request with `step` in a bare app whose errors go through the service's handler. */
async function answer(
  step: (c: Context<AppEnv>) => Response | Promise<Response>,
  init: RequestInit = {},
): Promise<Response> {
  const app = new Hono<AppEnv>();
  app.onError(handleError);
  app.post("/", step);
  return await app.request("http://portal.test/", { method: "POST", ...init });
}

/** The refusal `fn` throws. */
function refusalOf(fn: () => unknown): AppError {
  try {
    fn();
  } catch (err) {
    if (err instanceof AppError) return err;
    throw err;
  }
  throw new Error("no refusal");
}

/** The log lines written at warn level or above while `fn` runs. */
async function logLines(fn: () => unknown): Promise<Record<string, unknown>[]> {
  const lines: Record<string, unknown>[] = [];
  const original = [console.log, console.error];
  console.log = console.error = (line: string) => lines.push(JSON.parse(line));
  setLogLevel("warn");
  try {
    await fn();
  } finally {
    setLogLevel("silent");
    [console.log, console.error] = original;
  }
  return lines;
}

Deno.test("limitFailures lets an address launch until it failed too often, then answers 429", () => {
  const launch = new FailureLimiter(2, 60_000, () => 1_000);
  const deps = { failures: { launch } };
  limitFailures(deps, "192.0.2.1");
  launch.fail("192.0.2.1");
  launch.fail("192.0.2.1");
  limitFailures(deps, "192.0.2.2");
  const refusal = refusalOf(() => limitFailures(deps, "192.0.2.1"));
  assert.equal(refusal.status, 429);
  assert.equal(refusal.code, "too_many_failures");
  assert.equal(refusal.message, "Too many failed launches from your address: try again in 60 s");
  assert.deepEqual(refusal.headers, { "Retry-After": "60" });
});

Deno.test("countFailure counts the client's refusals only, never a 429 or a 5xx", () => {
  const launch = new FailureLimiter(1, 60_000);
  const deps = { failures: { launch } };
  countFailure(deps, new AppError(429, "too_many_failures", "slow down"), "192.0.2.1");
  assert.equal(launch.retryAfter("192.0.2.1"), 0, "a 429 is not a failure of its own");
  countFailure(deps, null, "192.0.2.1");
  countFailure(deps, new AppError(503, "unavailable", "database down"), "192.0.2.1");
  assert.equal(launch.retryAfter("192.0.2.1"), 0, "the service's faults lock no one out");
  countFailure(deps, new AppError(401, "invalid_signature", "Invalid signature"), "192.0.2.1");
  assert.ok(launch.retryAfter("192.0.2.1") > 0);
  countFailure(deps, new AppError(400, "invalid_payload", "bad"), null);
  assert.ok(launch.retryAfter("unknown") > 0, "no address counts as 'unknown'");
});

Deno.test("readSignedRequest returns the form field of an url-encoded form", async () => {
  const res = await answer(async (c) => c.json({ value: await readSignedRequest(c) }), {
    body: new URLSearchParams({ [SIGNED_REQUEST_FIELD]: "sig.payload", other: "x" }),
  });
  assert.deepEqual(await res.json(), { value: "sig.payload" });
});

Deno.test("readSignedRequest reads a form as FormData would: decoded", async () => {
  // `+` is a space and %XX a byte in a form body; the body may have been read as text before
  // (server/http/nul.ts).
  const body = `other=1&${SIGNED_REQUEST_FIELD}=a%2Bb+c%C3%A9.d%3D`;
  const res = await answer(async (c) => {
    assert.equal(await c.req.text(), body);
    return c.json({ value: await readSignedRequest(c) });
  }, { headers: { "Content-Type": "application/x-www-form-urlencoded;charset=UTF-8" }, body });
  assert.deepEqual(await res.json(), { value: "a+b cé.d=" });
});

Deno.test("readSignedRequest refuses the field sent twice, in either kind of form", async () => {
  const form = new FormData();
  form.append(SIGNED_REQUEST_FIELD, "sig.one");
  form.append(SIGNED_REQUEST_FIELD, "sig.two");
  const bodies: BodyInit[] = [
    `${SIGNED_REQUEST_FIELD}=sig.one&x=1&${SIGNED_REQUEST_FIELD}=sig.two`,
    form,
  ];
  for (const body of bodies) {
    const headers: Record<string, string> = typeof body === "string"
      ? { "Content-Type": "application/x-www-form-urlencoded" }
      : {};
    const res = await answer(async (c) => c.json({ value: await readSignedRequest(c) }), {
      headers,
      body,
    });
    assert.equal(res.status, 400);
    const answered = await res.json();
    assert.equal(answered.code, "malformed_signed_request");
    assert.equal(answered.message, "signed_request was sent 2 times: send the field once");
  }
});

Deno.test("readSignedRequest returns the field of a multipart form", async () => {
  const form = new FormData();
  form.append(SIGNED_REQUEST_FIELD, "sig.payload");
  const res = await answer(async (c) => c.json({ value: await readSignedRequest(c) }), {
    body: form,
  });
  assert.deepEqual(await res.json(), { value: "sig.payload" });
});

Deno.test("readSignedRequest returns nothing for a form without the field", async () => {
  const res = await answer(
    async (c) => c.json({ absent: (await readSignedRequest(c)) === undefined }),
    { body: new URLSearchParams({ other: "x" }) },
  );
  assert.deepEqual(await res.json(), { absent: true });
});

Deno.test("readSignedRequest refuses a body that is not a form with 415", async () => {
  const res = await answer(async (c) => c.json({ value: await readSignedRequest(c) }), {
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ [SIGNED_REQUEST_FIELD]: "sig.payload" }),
  });
  assert.equal(res.status, 415);
  assert.deepEqual(await res.json(), {
    code: "unsupported_media_type",
    message: "Send an HTML form: application/x-www-form-urlencoded or multipart/form-data " +
      "with the field signed_request",
  });
});

Deno.test("readSignedRequest refuses the field sent as a file with 400", async () => {
  const form = new FormData();
  form.append(SIGNED_REQUEST_FIELD, new File(["sig.payload"], "request.txt"));
  const res = await answer(async (c) => c.json({ value: await readSignedRequest(c) }), {
    body: form,
  });
  assert.equal(res.status, 400);
  assert.deepEqual(await res.json(), {
    code: "malformed_signed_request",
    message: "signed_request must be a text field",
  });
});

Deno.test("verifyRequest verifies with the previous key and says which key it was", async () => {
  const signed = await signPayload(JSON.stringify({ algorithm: "HMACSHA256", a: 1 }), "old-key");
  const verified = verifyRequest(signed, [
    { key: "new-key", which: "current" },
    { key: "old-key", which: "previous" },
  ]);
  assert.equal(verified.keyIndex, 1);
  assert.deepEqual(verified.payload, { algorithm: "HMACSHA256", a: 1 });
  const segment = signed.slice(0, signed.indexOf("."));
  assert.equal(verified.signature, Buffer.from(segment, "base64").toString("hex"));
});

Deno.test("verifyRequest refuses a request none of the app's keys signed with 401", async () => {
  const signed = await signPayload(JSON.stringify({ algorithm: "HMACSHA256" }), "other-key");
  const refusal = refusalOf(() => verifyRequest(signed, [{ key: "new-key", which: "current" }]));
  assert.equal(refusal.status, 401);
  assert.equal(refusal.code, "invalid_signature");
});

Deno.test("mapPayload of a default app passes the decoded request through", () => {
  const decoded = { algorithm: "HMACSHA256", context: {} };
  const mapped = mapPayload({ implementor: "default" }, decoded);
  assert.equal(mapped.payload, decoded);
  assert.equal(mapped.logged, decoded);
  assert.equal(mapped.crm, null);
  assert.deepEqual(mapped.warnings, []);
});

Deno.test("mapPayload of a crm_standard app maps a Canvas request and keeps its CRM", () => {
  const decoded = {
    algorithm: "HMACSHA256",
    client: { instanceUrl: "https://crm.example.com", oauthToken: "tok" },
    context: { user: { userId: "005", email: "ada@example.com" } },
  };
  const mapped = mapPayload({ implementor: "crm_standard" }, decoded);
  assert.deepEqual(mapped.crm, { instanceUrl: "https://crm.example.com", oauthToken: "tok" });
  assert.deepEqual(
    (mapped.payload.context as { user: unknown }).user,
    { id: "005", email: "ada@example.com" },
  );
  assert.deepEqual(mapped.logged.client, {
    instanceUrl: "https://crm.example.com",
    oauthToken: "[redacted]",
  });
});

/** Deps of sealCrmToken whose secret box records what it sealed. */
function sealingDeps(allowPrivate = false) {
  const sealed: string[] = [];
  return {
    sealed,
    config: { callbackAllowPrivateNetworks: allowPrivate },
    secrets: {
      encrypt: (plain: string, context: string) => {
        sealed.push(`${context}:${plain}`);
        return Promise.resolve(`sealed(${plain})`);
      },
    },
  };
}

Deno.test("sealCrmToken keeps no CRM context for a launch without one", async () => {
  const deps = sealingDeps();
  const warnings: LaunchWarning[] = [];
  assert.equal(await sealCrmToken(deps, 7, null, warnings), null);
  assert.deepEqual(warnings, []);
  assert.deepEqual(deps.sealed, []);
});

Deno.test("sealCrmToken seals the CRM's token to the app", async () => {
  const deps = sealingDeps();
  const crm = { instanceUrl: "https://crm.example.com", oauthToken: "tok" };
  assert.deepEqual(await sealCrmToken(deps, 7, crm, []), {
    instanceUrl: "https://crm.example.com",
    oauthTokenSealed: "sealed(tok)",
  });
  assert.deepEqual(deps.sealed, ["apps/7/crm_token:tok"]);
});

Deno.test("sealCrmToken keeps the instance without a token when the CRM sent none", async () => {
  const deps = sealingDeps();
  const crm = { instanceUrl: "https://crm.example.com", oauthToken: null };
  assert.deepEqual(await sealCrmToken(deps, 7, crm, []), {
    instanceUrl: "https://crm.example.com",
    oauthTokenSealed: null,
  });
  assert.deepEqual(deps.sealed, []);
});

Deno.test("sealCrmToken drops an instance URL that callbacks may not reach, with a warning", async () => {
  const deps = sealingDeps();
  const warnings: LaunchWarning[] = [];
  const crm = { instanceUrl: "http://127.0.0.1:8080", oauthToken: "tok" };
  assert.equal(await sealCrmToken(deps, 7, crm, warnings), null);
  assert.deepEqual(warnings.map((w) => [w.path, w.code]), [
    ["client.instanceUrl", "crm_instance_url_refused"],
  ]);
  assert.match(warnings[0].message, /callbacks to this session's CRM instance are not possible$/);
  assert.deepEqual(deps.sealed, [], "a refused CRM's token is not kept");
});

Deno.test("landed sends a browser to the session screen with 303", async () => {
  const res = await answer((c) => landed(c, config, 12, 34, { warnings: [] }), {
    headers: { Accept: "text/html,application/xhtml+xml" },
  });
  assert.equal(res.status, 303);
  assert.equal(res.headers.get("Location"), "http://portal.test/portal/sessions/12?launch=34");
});

Deno.test("landed answers anything but a browser with JSON", async () => {
  const warnings = [{ path: "p", code: "ignored_field", message: "m" }];
  const res = await answer(
    (c) => landed(c, config, 12, 34, { agentId: 5, customerId: 6, warnings }),
    { headers: { Accept: "*/*" } },
  );
  assert.equal(res.status, 200);
  assert.deepEqual(await res.json(), {
    sessionId: 12,
    agentId: 5,
    customerId: 6,
    launchId: 34,
    redirectUrl: "http://portal.test/portal/sessions/12?launch=34",
    warnings,
  });
});

Deno.test("countUnknownApp counts and logs each launch for an unknown app", async () => {
  const counter = { launches: 0 };
  const lines = await logLines(() => {
    countUnknownApp(counter, "nope", "192.0.2.1");
    countUnknownApp(counter, "x".repeat(100), null);
  });
  assert.equal(counter.launches, 2);
  assert.deepEqual(lines.map((l) => [l.msg, l.appName, l.clientAddress, l.count]), [
    ["launch for an unknown app", "nope", "192.0.2.1", 1],
    ["launch for an unknown app", "x".repeat(64), null, 2],
  ]);
});

Deno.test("countUnknownApp keeps each counter to itself", async () => {
  const one = { launches: 0 };
  const two = { launches: 0 };
  await logLines(() => {
    countUnknownApp(one, "nope", null);
    countUnknownApp(one, "nope", null);
  });
  assert.equal((await logLines(() => countUnknownApp(two, "nope", null)))[0].count, 1);
  assert.equal(one.launches, 2);
});

const refused = new AppError(401, "invalid_signature", "Invalid signature");

Deno.test("answerFailure shows a browser the error page, framable by the app", async () => {
  const res = await answer(
    (c) => answerFailure(c, refused, { frameAncestors: ["https://host.test"] }),
    { headers: { Accept: "text/html" } },
  );
  assert.equal(res.status, 401);
  assert.match(res.headers.get("Content-Type")!, /^text\/html/);
  assert.equal(
    res.headers.get("Content-Security-Policy"),
    "frame-ancestors 'self' https://host.test",
  );
  assert.match(await res.text(), /Invalid signature/);
});

Deno.test("answerFailure lets only the portal frame the page of an unknown app", async () => {
  const res = await answer((c) => answerFailure(c, refused, null), {
    headers: { Accept: "text/html" },
  });
  assert.equal(res.headers.get("Content-Security-Policy"), "frame-ancestors 'self'");
  await res.body?.cancel();
});

Deno.test("answerFailure rethrows a refusal for a caller that is not a browser", async () => {
  const res = await answer((c) => answerFailure(c, refused, null), {
    headers: { Accept: "application/json" },
  });
  assert.equal(res.status, 401);
  assert.deepEqual(await res.json(), { code: "invalid_signature", message: "Invalid signature" });
});

Deno.test("answerFailure rethrows an unexpected error, a browser's too", async () => {
  const bug = new TypeError("bug");
  const app = new Hono<AppEnv>();
  app.onError((err, c) => c.text(err === bug ? "rethrown" : "other", 500));
  app.post("/", (c) => answerFailure(c, bug, null));
  const res = await app.request("http://portal.test/", {
    method: "POST",
    headers: { Accept: "text/html" },
  });
  assert.equal(await res.text(), "rethrown");
});

// The steps that read or write the database, on the launch tests' fixture.
const fixtures = launchFixtures(backends);

/** A launch with its own nonce through the endpoint: the nonce and the login cookie. */
async function launched(f: LaunchFixture): Promise<{ nonce: string; cookie: string }> {
  const fields = freshnessFields();
  const res = await f.launch({ ...freshPayload(), ...fields });
  assert.equal(res.status, 303);
  return { nonce: fields.nonce, cookie: res.headers.get("Set-Cookie")!.split(";")[0] };
}

/** The launch log row written with the user agent `ua`. */
async function loggedRow(f: LaunchFixture, ua: string): Promise<Record<string, unknown> | null> {
  const [row] = await f.svc.db.sql<Record<string, unknown>[]>`
    select app_id, app_name, outcome, message, client_address, payload, warnings
    from launches where user_agent = ${ua}
  `;
  return row ? { ...row, appId: Number(row.appId) } : null;
}

for (const backend of backends) {
  const test = fixtureTest(fixtures, backend, "");

  test("findApp finds an app by name, whatever its case", async (f) => {
    const app = await findApp(f.svc.deps, "CRM");
    assert.equal(app.appName, "crm");
    assert.deepEqual(app.frameAncestors, ["https://host.test"]);
  });

  test("findApp refuses an app that does not exist with 404", async (f) => {
    await assert.rejects(findApp(f.svc.deps, "nope"), (err: AppError) => {
      assert.equal(err.status, 404);
      assert.equal(err.code, "app_not_found");
      assert.equal(err.message, "Unknown application: nope");
      return true;
    });
  });

  test("findApp refuses a disabled app as if it did not exist", async (f) => {
    const appName = uniqueId("off").toLowerCase();
    await createTestApp(f.svc, f.adminToken, appName, { enabled: false });
    await assert.rejects(findApp(f.svc.deps, appName), (err: AppError) => {
      assert.equal(err.code, "app_not_found");
      return true;
    });
  });

  test("runFlow launches, sets the portal login cookie and answers", async (f) => {
    const app = await findApp(f.svc.deps, "crm");
    const meta = { appId: app.id, appName: app.appName, clientAddress: null, userAgent: null };
    const payload = freshPayload();
    const parsed = parseLaunchPayload(payload);
    const res = await answer((c) => runFlow(c, f.svc.deps, parsed, { ...meta, payload }), {
      headers: { Accept: "application/json" },
    });
    assert.equal(res.status, 200);
    const body = await res.json();
    assert.equal(
      body.redirectUrl,
      `http://portal.test/portal/sessions/${body.sessionId}?launch=${body.launchId}`,
    );
    assert.match(res.headers.get("Set-Cookie")!, /^portal_login=[A-Za-z0-9_-]{43}; /);
  });

  test("planFlow answers the launch's plan and writes nothing", async (f) => {
    const app = await findApp(f.svc.deps, "crm");
    const meta = { appId: app.id, appName: app.appName, clientAddress: null, userAgent: null };
    const payload = freshPayload();
    const before = await f.counts();
    const res = await answer(
      (c) => planFlow(c, f.svc.deps, parseLaunchPayload(payload), { ...meta, payload }),
    );
    const body = await res.json();
    assert.equal(body.ok, true);
    assert.equal(body.plan.agent, "create");
    assert.equal(res.headers.get("Set-Cookie"), null);
    assert.deepEqual(delta(before, await f.counts()), {});
  });

  test("reenterSession takes the browser that launched back to its session", async (f) => {
    const { nonce, cookie } = await launched(f);
    const app = await findApp(f.svc.deps, "crm");
    const replay = { key: nonce, expiresAt: new Date(Date.now() + 60_000) };
    const res = await answer(
      async (c) => await reenterSession(c, f.svc.deps, replayed(), app, replay) ?? c.text("none"),
      { headers: { Accept: "text/html", Cookie: cookie } },
    );
    assert.equal(res.status, 303);
    assert.match(res.headers.get("Location")!, /^http:\/\/portal\.test\/portal\/sessions\/\d+/);
    assert.equal(res.headers.get("Set-Cookie"), null, "no new login");
  });

  test("reenterSession does nothing for a browser without that login", async (f) => {
    const { nonce, cookie } = await launched(f);
    const app = await findApp(f.svc.deps, "crm");
    const replay = { key: nonce, expiresAt: new Date(Date.now() + 60_000) };
    const other = { key: crypto.randomUUID(), expiresAt: replay.expiresAt };
    const cases: [string, AppError, FreshnessOutcome["replay"], HeadersInit][] = [
      ["no cookie", replayed(), replay, {}],
      ["another request's replay key", replayed(), other, { Cookie: cookie }],
      ["another refusal", new AppError(401, "launch_expired", "old"), replay, { Cookie: cookie }],
      ["no replay key", replayed(), null, { Cookie: cookie }],
    ];
    for (const [what, refusal, key, headers] of cases) {
      const res = await answer(
        async (c) => await reenterSession(c, f.svc.deps, refusal, app, key) ?? c.text("none"),
        { headers },
      );
      assert.equal(await res.text(), "none", what);
    }
  });

  test("recordFailure writes a refused launch to the launch log", async (f) => {
    const app = await findApp(f.svc.deps, "crm");
    const ua = uniqueId("ua");
    const warnings = [{ path: "p", code: "ignored_field", message: "m" }];
    await recordFailure(f.svc.deps, new AppError(401, "launch_expired", "Too old"), {
      app,
      clientAddress: "192.0.2.7",
      userAgent: ua,
      payload: { algorithm: "HMACSHA256" },
      warnings,
    });
    assert.deepEqual(await loggedRow(f, ua), {
      appId: app.id,
      appName: "crm",
      outcome: "launch_expired",
      message: "Too old",
      clientAddress: "192.0.2.7",
      payload: { algorithm: "HMACSHA256" },
      warnings,
    });
  });

  test("recordFailure writes an unexpected failure as internal_error", async (f) => {
    const app = await findApp(f.svc.deps, "crm");
    const ua = uniqueId("ua");
    const attempt = { app, clientAddress: null, userAgent: ua, payload: null, warnings: [] };
    await recordFailure(f.svc.deps, null, attempt);
    const row = await loggedRow(f, ua);
    assert.equal(row?.outcome, "internal_error");
    assert.equal(row?.message, "Internal server error");
    assert.equal(row?.payload, null);
  });

  test("recordFailure logs a launch log it cannot write instead of throwing", async (f) => {
    const ua = uniqueId("ua");
    const ghost = { id: -1, appName: "ghost" };
    const attempt = { app: ghost, clientAddress: null, userAgent: ua, payload: null, warnings: [] };
    const lines = await logLines(() => recordFailure(f.svc.deps, null, attempt));
    assert.deepEqual(lines.map((l) => l.msg), ["cannot record failed launch"]);
    assert.equal(await loggedRow(f, ua), null);
  });

  test("launch routes count unknown-app launches per instance, not per process", async (f) => {
    const lines = await logLines(async () => {
      for (const routes of [launchRoutes(f.svc.deps), launchRoutes(f.svc.deps)]) {
        routes.onError(handleError);
        const res = await routes.request("http://portal.test/api/auth/app/nope", {
          method: "POST",
          headers: { Accept: "application/json" },
          body: new URLSearchParams({ [SIGNED_REQUEST_FIELD]: "sig.payload" }),
        });
        assert.equal(res.status, 404);
        await res.body?.cancel();
      }
    });
    assert.deepEqual(
      lines.filter((l) => l.msg === "launch for an unknown app").map((l) => l.count),
      [1, 1],
    );
  });
}
