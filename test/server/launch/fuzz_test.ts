/**
 * Property tests: no input yields a 5xx. fast-check generates launch payloads (valid ones mutated
 * field by field: wrong types, huge and deep values, unicode, blanks, duplicates, unknown keys),
 * signs them and posts them to the launch endpoint and the dry run; it also sends damaged raw
 * bodies to the token endpoint and to PATCH /api/v1/sessions/:id. Every answer is a 2xx, a 303 or
 * a 4xx with a JSON body (or the HTML error page for browsers), and a refused launch writes
 * nothing but its launch-log record. FC_SEED=<seed> replays a failing run (the seed is printed).
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { backends } from "../../helpers/db.ts";
import type { Json } from "../../helpers/payload.ts";
import { signLaunch } from "../../helpers/launch.ts";
import { ADMIN_CLIENT } from "../../helpers/service.ts";
import { delta, fixtureTest, launchFixtures } from "./fixture.ts";

const fixtures = launchFixtures(backends);
const seed = Deno.env.get("FC_SEED") ? Number(Deno.env.get("FC_SEED")) : undefined;
const RUNS = { launch: 700, dryRun: 300, token: 500, patch: 500 };

/** Values a CRM template or a hostile client might put anywhere. */
const wild: fc.Arbitrary<Json> = fc.oneof(
  { arbitrary: fc.constantFrom("", "   ", null, {}, [], 0, -1, 1.5, true, false), weight: 3 },
  {
    arbitrary: fc.constantFrom(1e308, -1e308, Number.MAX_SAFE_INTEGER + 2, 99999999999999999999),
    weight: 2,
  },
  {
    arbitrary: fc.constantFrom("99999999999999999999999999", "0", "00042", "NaN", "1e5", "-3"),
    weight: 2,
  },
  // Whole numbers around every integer type's range, as JSON numbers and as digit strings.
  { arbitrary: fc.bigInt({ min: -(10n ** 25n), max: 10n ** 25n }).map(String), weight: 3 },
  { arbitrary: fc.bigInt({ min: 0n, max: 10n ** 25n }).map(Number), weight: 3 },
  fc.string({ maxLength: 30 }),
  fc.string({ unit: "grapheme", maxLength: 30 }),
  fc.string({ unit: "binary", maxLength: 20 }),
  fc.string({ minLength: 300, maxLength: 5000 }),
  fc.emailAddress(),
  fc.uuid(),
  fc.integer(),
  fc.double(),
  fc.array(fc.oneof(fc.string({ maxLength: 10 }), fc.integer(), fc.constant(null)), {
    maxLength: 80,
  }),
  fc.dictionary(fc.string({ maxLength: 12 }), fc.string({ maxLength: 12 }), { maxKeys: 8 }),
  fc.integer({ min: 5, max: 40 }).map((depth) => {
    let v: Json = "deep";
    for (let i = 0; i < depth; i++) v = i % 2 ? { a: v } : [v];
    return v;
  }),
  fc.array(
    fc.record({ teamId: fc.constantFrom("T1", "T1", "T2", ""), teamName: fc.string() }),
    { maxLength: 60 },
  ),
  fc.record({
    search: fc.array(
      fc.record({
        search_type: fc.constantFrom("category_uid", "tag", "path_uid", "full_text", "x"),
        search_values: fc.array(fc.oneof(fc.uuid(), fc.string({ maxLength: 20 })), {
          maxLength: 5,
        }),
      }),
      { maxLength: 6 },
    ),
    remote: fc.oneof(fc.boolean(), fc.constantFrom("", null, "1", 2)),
    allPaths: fc.oneof(fc.boolean(), fc.constant("")),
  }),
);

const PARAMS = ["context", "environment", "parameters"];
/** Where the mutations land: every field of the contract, and the containers above them. */
const TARGETS: string[][] = [
  ["algorithm"],
  ["issuedAt"],
  ["nonce"],
  ["context"],
  ["context", "user"],
  ["context", "environment"],
  PARAMS,
  ...["id", "email", "first_name", "last_name", "phone", "locale", "teams"].map((
    k,
  ) => ["context", "user", k]),
  ...[
    "target",
    "sessionId",
    "referenceId",
    "referenceNumber",
    "contactId",
    "contactFirstName",
    "contactLastName",
    "contactEmail",
    "contactPhone",
    "contactMobile",
    "contactOtherPhone",
    "customFields",
    "deviceComputer",
    "deviceMobile",
    "assign",
    "paths",
    "showSessionStatusChange",
    "showAssignToMeButton",
    "showSessionTransferButton",
    "user",
    "user.locale",
    "user.teams",
    "anUnknownCrmField",
  ].map((k) => [...PARAMS, k]),
  [...PARAMS, "deviceComputer", "av_prods"],
  [...PARAMS, "deviceComputer", "serial"],
  [...PARAMS, "customFields", "priority"],
  [...PARAMS, "paths", "search"],
  ["context", "organization"],
];

/** A valid payload over a small pool of identities, so conflicts and existing rows happen. */
const validPayload: fc.Arbitrary<Json> = fc.record({
  agent: fc.integer({ min: 1, max: 4 }),
  agentEmail: fc.integer({ min: 1, max: 4 }),
  contact: fc.integer({ min: 1, max: 4 }),
  contactEmail: fc.integer({ min: 1, max: 4 }),
}).map((n) => ({
  algorithm: "HMACSHA256",
  context: {
    user: {
      id: `fz${n.agent}`,
      email: `fz${n.agentEmail}@example.com`,
      first_name: "Ada",
      last_name: "Lovelace",
    },
    environment: {
      parameters: {
        referenceNumber: "CASE1",
        contactId: `FZ${n.contact}`,
        contactFirstName: "Grace",
        contactLastName: "Hopper",
        contactEmail: `fz${n.contactEmail}@example.org`,
        contactPhone: "5559876543",
      },
    },
  },
}));

function setPath(target: Json, path: readonly string[], value: Json): void {
  let node = target;
  for (const key of path.slice(0, -1)) {
    if (!node[key] || typeof node[key] !== "object") node[key] = {};
    node = node[key];
  }
  node[path[path.length - 1]] = value;
}

/** The fields that take numbers, and values around every integer type's range. */
const numericMutation = fc.tuple(
  fc.constantFrom(
    [...PARAMS, "sessionId"],
    [...PARAMS, "contactPhone"],
    [...PARAMS, "contactId"],
    [...PARAMS, "referenceNumber"],
    [...PARAMS, "assign"],
    [...PARAMS, "customFields", "priority"],
    [...PARAMS, "deviceComputer", "memory"],
    ["context", "user", "id"],
  ),
  fc.oneof(
    fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }).map(String),
    fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }).map(Number),
    fc.double(),
  ),
);

const mutatedPayload = fc.tuple(
  validPayload,
  fc.array(fc.oneof(fc.tuple(fc.constantFrom(...TARGETS), wild), numericMutation), {
    minLength: 0,
    maxLength: 3,
  }),
).map(([payload, mutations]) => {
  // Clone each value: constantFrom hands out the same object every run, and writing into it would
  // carry one run's mutations into the next (even into cycles).
  for (const [path, value] of mutations) setPath(payload, path, structuredClone(value));
  return payload;
});

const accept = fc.constantFrom(
  "application/json",
  "*/*",
  "",
  "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8",
);

/** Checks one answer: below 500, and a body of the kind the caller can read. */
async function readableAnswer(res: Response, html: boolean): Promise<void> {
  const text = await res.text();
  assert.ok(res.status < 500, `${res.status}: ${text.slice(0, 300)}`);
  if (res.status === 303) return;
  const type = res.headers.get("Content-Type") ?? "";
  if (html && res.status >= 400 && type.startsWith("text/html")) {
    assert.match(text, /role="alert"/);
    return;
  }
  assert.match(type, /application\/json/, `${res.status} ${type}: ${text.slice(0, 200)}`);
  JSON.parse(text);
}

function options(runs: number): fc.Parameters<unknown> {
  return { numRuns: runs, seed, endOnFailure: true };
}

for (const backend of backends) {
  const test = fixtureTest(fixtures, backend, "fuzz ");

  test(`launch: ${RUNS.launch} generated payloads, never a 5xx, refusals write only the log`, async (f) => {
    await fc.assert(
      fc.asyncProperty(mutatedPayload, accept, async (payload, acceptHeader) => {
        const before = await f.counts();
        const res = await f.svc.request("/portal/api/auth/app/crm", {
          method: "POST",
          headers: acceptHeader ? { Accept: acceptHeader } : {},
          body: new URLSearchParams({
            signed_request: await signLaunch(payload, f.app.apiKey),
          }),
        });
        const status = res.status;

        await readableAnswer(res, acceptHeader.startsWith("text/html"));
        if (status >= 400) {
          assert.deepEqual(delta(before, await f.counts()), { launches: 1 }, `status ${status}`);
        }
      }),
      options(RUNS.launch),
    );
  });

  test(`dry run: ${RUNS.dryRun} generated payloads, never a 5xx, never a write`, async (f) => {
    await fc.assert(
      fc.asyncProperty(mutatedPayload, async (payload) => {
        const before = await f.counts();
        const res = await f.svc.request("/portal/api/auth/app/crm/validate", {
          method: "POST",
          body: new URLSearchParams({
            signed_request: await signLaunch(payload, f.app.apiKey),
          }),
        });
        await readableAnswer(res, false);
        assert.deepEqual(delta(before, await f.counts()), {});
      }),
      options(RUNS.dryRun),
    );
  });

  const rawBody = fc.oneof(
    fc.string({ maxLength: 200 }),
    fc.string({ unit: "binary", maxLength: 200 }),
    fc.dictionary(
      fc.constantFrom("grant_type", "client_id", "client_secret", "scope", "token", "x"),
      fc.oneof(fc.string({ maxLength: 50 }), fc.constantFrom("client_credentials", "", "%")),
    ).map((d) => new URLSearchParams(d).toString()),
    fc.jsonValue().map((v) => JSON.stringify(v)),
    fc.oneof(fc.string({ maxLength: 40 }), fc.constantFrom("admin", "sessions:read admin", ""))
      .map((scope) =>
        new URLSearchParams({
          grant_type: "client_credentials",
          client_id: ADMIN_CLIENT.id,
          client_secret: ADMIN_CLIENT.secret,
          scope,
        }).toString()
      ),
  );
  const contentType = fc.constantFrom(
    "application/x-www-form-urlencoded",
    "application/json",
    "text/plain",
    "multipart/form-data; boundary=xyz",
    "application/x-www-form-urlencoded; charset=utf-16",
    "",
  );

  test(`token endpoint: ${RUNS.token} damaged bodies, never a 5xx`, async (f) => {
    await fc.assert(
      fc.asyncProperty(
        rawBody,
        contentType,
        fc.option(fc.string({ maxLength: 60 })),
        async (body, type, basic) => {
          const headers: Record<string, string> = {};
          if (type) headers["Content-Type"] = type;
          if (basic !== null) headers.Authorization = `Basic ${basic}`;
          const res = await f.svc.request("/api/v1/oauth2/token", {
            method: "POST",
            headers,
            body,
          });
          await readableAnswer(res, false);
        },
      ),
      options(RUNS.token),
    );
  });

  test(`PATCH /api/v1/sessions/:id: ${RUNS.patch} damaged bodies and ids, never a 5xx`, async (f) => {
    const token = await f.svc.adminToken();
    const existing = await f.launchJson({
      algorithm: "HMACSHA256",
      context: {
        user: { id: "fzpatch", email: "fzpatch@example.com", first_name: "A", last_name: "B" },
        environment: {
          parameters: {
            referenceNumber: "P1",
            contactId: "FZP",
            contactFirstName: "C",
            contactLastName: "D",
            contactEmail: "fzp@example.org",
            contactPhone: "5550001111",
          },
        },
      },
    });
    const id = fc.oneof(
      { arbitrary: fc.constant(String(existing.body.sessionId)), weight: 4 },
      fc.constantFrom("0", "-1", "99999999999999999999", "abc", "1.5", "%00"),
      fc.nat().map(String),
    );
    const patch = fc.oneof(
      rawBody,
      { arbitrary: fc.constantFrom('{"status":"closed"}', '{"status":"open"}'), weight: 2 },
      fc.record({
        status: fc.oneof(fc.constantFrom("open", "closed", "x"), wild),
        assigneeId: fc.oneof(fc.constant(existing.body.agentId), wild),
        customFields: fc.oneof(
          fc.dictionary(fc.constantFrom("priority", "x", ""), wild, { maxKeys: 3 }),
          wild,
        ),
      }, { requiredKeys: [] }).map((v) => JSON.stringify(v)),
      {
        arbitrary: fc.record({
          status: fc.constantFrom("open", "closed"),
          customFields: fc.record({
            priority: fc.oneof(fc.string(), fc.integer(), fc.constant(null)),
          }),
        }, { requiredKeys: [] }).map((v) => JSON.stringify(v)),
        weight: 3,
      },
    );
    const jsonMostly = fc.oneof(
      { arbitrary: fc.constant("application/json"), weight: 5 },
      { arbitrary: contentType, weight: 1 },
    );
    await fc.assert(
      fc.asyncProperty(id, patch, jsonMostly, async (sessionId, body, type) => {
        const res = await f.svc.request(`/api/v1/sessions/${encodeURIComponent(sessionId)}`, {
          method: "PATCH",
          headers: { Authorization: `Bearer ${token}`, ...(type ? { "Content-Type": type } : {}) },
          body,
        });
        await readableAnswer(res, false);
      }),
      options(RUNS.patch),
    );
  });
}
