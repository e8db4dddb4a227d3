import assert from "node:assert/strict";
import { parseLaunchPayload } from "../../../server/launch/payload.ts";
import { contentLanguage } from "../../../server/launch/contract.ts";
import { AppError, type FieldError } from "../../../server/http/errors.ts";
import { type Json, launchPayload } from "../../helpers/payload.ts";

function base(): Json {
  return launchPayload();
}

function errorsOf(payload: Json): FieldError[] {
  try {
    parseLaunchPayload(payload);
  } catch (err) {
    if (err instanceof AppError) {
      assert.equal(err.status, 400);
      assert.equal(err.message, "Invalid launch payload");
      return err.errors!;
    }
    throw err;
  }
  throw new Error("expected an error");
}

function withParams(params: Json): Json {
  const p = base();
  Object.assign(p.context.environment.parameters, params);
  return p;
}

Deno.test("payload: the minimal payload gets every default", () => {
  const out = parseLaunchPayload(base());
  assert.equal(out.agent.externalId, "agent42");
  assert.equal(out.customer.phone1, "5559876543");
  assert.equal(out.session.id, null);
  assert.equal(out.session.assign, false);
  assert.deepEqual(out.view, {
    target: "standard",
    paths: null,
    showSessionStatusChange: true,
    showAssignToMeButton: true,
    showSessionTransferButton: true,
    locale: "en",
    language: "en",
  });
});

Deno.test("payload: an invalid user id is exactly 'Error evaluating User'", () => {
  for (const id of ["a b", "agent@42", "x".repeat(129), true, { id: 1 }, [1], 1.5e300]) {
    const p = base();
    p.context.user.id = id;
    assert.throws(() => parseLaunchPayload(p), (err: AppError) => {
      assert.equal(err.status, 400);
      assert.deepEqual(err.body(), { message: "Error evaluating User" });
      return true;
    }, JSON.stringify(id));
  }
});

Deno.test("payload: ids take CRM forms: '-', '_', '.', GUID braces, JSON numbers", () => {
  const guid = "{3F2504E0-4F89-11D3-9A0C-0305E82C3301}";
  for (
    const [id, want] of [["agent-42", "agent-42"], ["user_1", "user_1"], [42, "42"], [guid, guid]]
  ) {
    const p = withParams({ contactId: id, referenceId: id, referenceNumber: id });
    p.context.user.id = id;
    const out = parseLaunchPayload(p);
    assert.deepEqual(
      [
        out.agent.externalId,
        out.customer.externalId,
        out.session.referenceId,
        out.session.externalReference,
      ],
      [want, want, want, want],
      String(id),
    );
  }
});

Deno.test("payload: names accept Unicode letters, spaces, hyphens, apostrophes, periods", () => {
  for (const name of ["José", "O'Brien", "Mary-Jane", "Zoë", "Ōkubo", "St. John", "Núñez"]) {
    const p = withParams({ contactLastName: name });
    p.context.user.first_name = name;
    assert.equal(parseLaunchPayload(p).customer.lastName, name);
  }
  const errs = errorsOf(withParams({ contactFirstName: "R2D2", contactLastName: "<b>" }));
  assert.deepEqual(errs.map((e) => e.path), [
    "context.environment.parameters.contactFirstName",
    "context.environment.parameters.contactLastName",
  ]);
});

Deno.test("payload: e-mails must be name@account.suffix; they are lower-cased", () => {
  assert.equal(
    parseLaunchPayload(withParams({ contactEmail: "Grace@Example.ORG" })).customer.email,
    "grace@example.org",
  );
  for (const bad of ["grace", "grace@example", "grace@.org", "a b@c.de", "@x.org"]) {
    const errs = errorsOf(withParams({ contactEmail: bad }));
    assert.equal(errs[0].path, "context.environment.parameters.contactEmail", bad);
  }
  const p = base();
  p.context.user.email = "nope";
  assert.equal(errorsOf(p)[0].path, "context.user.email");
});

Deno.test("payload: phones keep digits, accepting + and separators", () => {
  const out = parseLaunchPayload(
    withParams({ contactPhone: "+1 (555) 987-65.43", contactMobile: 5550001111 }),
  );
  assert.equal(out.customer.phone1, "15559876543");
  assert.equal(out.customer.phone2, "5550001111");
  assert.equal(
    errorsOf(withParams({ contactPhone: "555-CALL-NOW" }))[0].path,
    "context.environment.parameters.contactPhone",
  );
});

Deno.test("payload: required fields missing are all listed at once", () => {
  const p = base();
  p.context.environment.parameters = {};
  const paths = errorsOf(p).map((e) => e.path).sort();
  assert.deepEqual(
    paths,
    [
      "contactEmail",
      "contactFirstName",
      "contactId",
      "contactLastName",
      "contactPhone",
      "referenceNumber",
    ].map((f) => `context.environment.parameters.${f}`),
  );
});

Deno.test("payload: sessionId numeric, blank or null means new", () => {
  assert.equal(parseLaunchPayload(withParams({ sessionId: 12 })).session.id, 12);
  assert.equal(parseLaunchPayload(withParams({ sessionId: "12" })).session.id, 12);
  assert.equal(parseLaunchPayload(withParams({ sessionId: "" })).session.id, null);
  assert.equal(parseLaunchPayload(withParams({ sessionId: null })).session.id, null);
  assert.equal(
    errorsOf(withParams({ sessionId: "12a" }))[0].path,
    "context.environment.parameters.sessionId",
  );
});

Deno.test("payload: assign accepts true/false/1/0 and their strings", () => {
  for (
    const [v, want] of [
      [true, true],
      [1, true],
      ["1", true],
      ["true", true],
      [false, false],
      [0, false],
      ["0", false],
      ["false", false],
    ]
  ) {
    assert.equal(parseLaunchPayload(withParams({ assign: v })).session.assign, want, String(v));
  }
  assert.equal(
    errorsOf(withParams({ assign: "yes" }))[0].path,
    "context.environment.parameters.assign",
  );
});

Deno.test("payload: devices take the listed properties; others are ignored with a warning", () => {
  const out = parseLaunchPayload(withParams({
    deviceComputer: {
      name: "LAPTOP-7",
      memory: 16384,
      av_prods: [{ company: "Acme", latest: true, name: "AV", version: "4.2" }],
    },
    deviceMobile: { model: "Pixel", serial2: "X" },
  }));
  assert.deepEqual(out.session.devices.map((d) => d.kind), ["computer", "mobile"]);
  assert.equal(out.session.devices[0].properties.memory, "16384");
  const extra = parseLaunchPayload(withParams({
    deviceComputer: { name: "x", gpu: "y", av_prods: [{ vendor: "z", name: "AV" }] },
    deviceMobile: { os_arch: "arm", model: "Pixel" },
  }));
  assert.deepEqual(extra.warnings.map((e) => `${e.path}: ${e.code}`).sort(), [
    "context.environment.parameters.deviceComputer.av_prods.0.vendor: ignored_field",
    "context.environment.parameters.deviceComputer.gpu: ignored_field",
    "context.environment.parameters.deviceMobile.os_arch: ignored_field",
  ]);
  assert.deepEqual(extra.session.devices.map((d) => d.properties), [
    { name: "x", av_prods: [{ name: "AV" }] },
    { model: "Pixel" },
  ]);
});

Deno.test("payload: paths rules of spec §2.3", () => {
  const cat = "3F2B8C1E-9D4A-4E7B-8A6C-1B2D3E4F5A6B";
  const ok = parseLaunchPayload(withParams({
    paths: {
      search: [{ search_type: "category_uid", search_values: [cat] }, {
        search_type: "full_text",
        search_values: [" printer offline "],
      }],
    },
  }));
  assert.deepEqual(ok.view.paths, {
    search: [{ type: "category_uid", values: [cat.toLowerCase()] }, {
      type: "full_text",
      values: ["printer offline"],
    }],
    remote: false,
    allPaths: false,
  });
  assert.deepEqual(
    parseLaunchPayload(withParams({ paths: { remote: true } })).view.paths?.search,
    [],
  );
  const p = "context.environment.parameters.paths";
  const cases: [Json, string, RegExp][] = [
    [{ remote: false }, `${p}.remote`, /rule 4/],
    [{ remote: false, allPaths: true }, `${p}.remote`, /invalid combination/],
    [{ search: [{ search_type: "category_uid" }] }, `${p}.search.0.search_values`, /required/],
    [{ search: [{ search_values: ["x"] }] }, `${p}.search.0.search_type`, /required/],
    [
      { search: [{ search_type: "color", search_values: ["x"] }] },
      `${p}.search.0.search_type`,
      /category_uid, tag/,
    ],
    [
      { search: [{ search_type: "path_uid", search_values: ["not-a-uuid"] }] },
      `${p}.search.0.search_values.0`,
      /8-4-4-4-12/,
    ],
    [
      { search: [{ search_type: "full_text", search_values: ["a", "b"] }] },
      `${p}.search.0.search_values`,
      /exactly one/,
    ],
    [
      {
        search: [{ search_type: "tag", search_values: ["a"] }, {
          search_type: "tag",
          search_values: ["b"],
        }],
      },
      `${p}.search.1.search_type`,
      /more than once/,
    ],
  ];
  for (const [paths, path, message] of cases) {
    const errs = errorsOf(withParams({ paths }));
    const hit = errs.find((e) => e.path === path);
    assert.ok(hit, `${JSON.stringify(paths)}: got ${JSON.stringify(errs)}`);
    assert.match(hit.message, message);
  }
});

Deno.test("payload: show flags default true and read false", () => {
  const out = parseLaunchPayload(
    withParams({ showSessionStatusChange: false, showAssignToMeButton: 0, target: "embedded" }),
  );
  assert.equal(out.view.showSessionStatusChange, false);
  assert.equal(out.view.showAssignToMeButton, false);
  assert.equal(out.view.showSessionTransferButton, true);
  assert.equal(out.view.target, "embedded");
  assert.equal(
    errorsOf(withParams({ target: "mobile" }))[0].path,
    "context.environment.parameters.target",
  );
});

Deno.test("payload: user.locale and user.teams in three places, most specific first", () => {
  const teams = [{ teamId: "T1", teamName: "Tier 1" }];
  const p = withParams({ user: { locale: "de-DE" }, "user.locale": "fr-CA", "user.teams": teams });
  p.context.user.locale = "es";
  const out = parseLaunchPayload(p);
  assert.equal(out.agent.locale, "fr-CA");
  assert.equal(out.view.language, "fr");
  assert.deepEqual(out.agent.teams, teams);
  const q = withParams({ user: { locale: "de-DE" } });
  q.context.user.locale = "es";
  assert.equal(parseLaunchPayload(q).view.language, "de");
  const r = base();
  r.context.user.locale = "es_MX";
  r.context.user.teams = teams;
  assert.equal(parseLaunchPayload(r).view.language, "es");
  assert.deepEqual(parseLaunchPayload(r).agent.teams, teams);
  assert.equal(contentLanguage(undefined), "en");
});

Deno.test("payload: unknown parameters are named in warnings (typos do not pass silently)", () => {
  const out = parseLaunchPayload(withParams({ contactMobil: "555" }));
  assert.deepEqual(out.warnings, [{
    path: "context.environment.parameters.contactMobil",
    code: "ignored_field",
    message: "not part of the launch contract; ignored",
  }]);
  assert.equal(out.customer.phone2, null);
});

Deno.test("payload: the shared vectors' payloads parse (but the plus-and-slash name)", async () => {
  const cases = JSON.parse(
    await Deno.readTextFile(
      new URL("../../fixtures/signed_request.json", import.meta.url),
    ),
  ).cases;
  for (const c of cases) {
    if (c.name === "plus-and-slash") {
      assert.equal(errorsOf(JSON.parse(c.payloadJson))[0].path, "context.user.last_name");
    } else {
      assert.ok(parseLaunchPayload(JSON.parse(c.payloadJson)), c.name);
    }
  }
  const full = parseLaunchPayload(
    JSON.parse(cases.find((c: Json) => c.name === "full").payloadJson),
  );
  assert.equal(full.view.language, "fr");
  assert.equal(full.session.assign, true);
  assert.deepEqual(full.agent.teams, [{ teamId: "T1", teamName: "Tier 1" }]);
});

Deno.test("payload: blank means absent for every optional field", () => {
  const blanks: Json[] = ["", "  ", null];
  const optional = [
    "target",
    "sessionId",
    "referenceId",
    "contactMobile",
    "contactOtherPhone",
    "assign",
    "showSessionStatusChange",
    "showAssignToMeButton",
    "showSessionTransferButton",
    "user.locale",
    "user.teams",
  ];
  const objects = ["customFields", "deviceComputer", "deviceMobile", "paths", "user"];
  const plain = parseLaunchPayload(base());
  for (const field of [...optional, ...objects]) {
    for (const blank of objects.includes(field) ? [...blanks, {}] : blanks) {
      const out = parseLaunchPayload(withParams({ [field]: blank }));
      assert.deepEqual(out.warnings, [], `${field}: ${JSON.stringify(blank)}`);
      assert.deepEqual(
        { ...out, warnings: [] },
        { ...plain, warnings: [] },
        `${field}: ${JSON.stringify(blank)}`,
      );
    }
  }
  for (const field of ["id", "phone", "locale", "teams"]) {
    for (const blank of [...blanks, ...(field === "teams" ? [[]] : [])]) {
      const p = base();
      p.context.user[field] = blank;
      const out = parseLaunchPayload(p);
      if (field === "id") assert.equal(out.agent.externalId, null);
      else assert.deepEqual({ ...out, agent: plain.agent }, { ...plain, agent: plain.agent });
    }
  }
  const inside = parseLaunchPayload(withParams({
    paths: { search: [{ search_type: "tag", search_values: [""] }], remote: true, allPaths: "" },
    deviceComputer: { name: "", serial: null, av_prods: [] },
  }));
  assert.deepEqual(inside.view.paths, { search: [], remote: true, allPaths: false });
  assert.deepEqual(inside.session.devices, [], "a device with only blank properties is none");
});

Deno.test("payload: blank required fields are still errors that name them", () => {
  for (const blank of ["", null, "   "]) {
    const errs = errorsOf(withParams({ contactEmail: blank, contactId: blank }));
    assert.deepEqual(
      errs.map((e) => [e.path, e.code]).sort(),
      [
        ["context.environment.parameters.contactEmail", "required"],
        ["context.environment.parameters.contactId", "required"],
      ],
      JSON.stringify(blank),
    );
  }
});

Deno.test("payload: every value has a bound", () => {
  const long = (n: number) => "1".repeat(n);
  const cases: [Json, string][] = [
    [{ contactPhone: long(41) }, "contactPhone"],
    [{ "user.locale": `fr-${"abcdefgh-".repeat(5)}x` }, "user.locale"],
    [{ customFields: { priority: "x".repeat(2001) } }, "customFields.priority"],
    [{ deviceMobile: { name: "x".repeat(501) } }, "deviceMobile.name"],
    [{ sessionId: long(41) }, "sessionId"],
    [{ contactId: "x".repeat(129) }, "contactId"],
    [{
      "user.teams": Array.from({ length: 51 }, (_, i) => ({ teamId: `T${i}`, teamName: "T" })),
    }, "user.teams"],
  ];
  for (const [params, field] of cases) {
    const errs = errorsOf(withParams(params));
    assert.ok(
      errs.some((e) => e.path.startsWith(`context.environment.parameters.${field}`)),
      `${field}: ${JSON.stringify(errs)}`,
    );
  }
});

Deno.test("payload: a sessionId beyond any session's is an unknown session (404)", () => {
  for (const id of ["99999999999999999999", 1e20, "9007199254740993"]) {
    assert.throws(() => parseLaunchPayload(withParams({ sessionId: id })), (err: AppError) => {
      assert.equal(err.status, 404);
      assert.equal(err.code, "session_not_found");
      return true;
    }, String(id));
  }
  assert.equal(parseLaunchPayload(withParams({ sessionId: "0042" })).session.id, 42);
});

Deno.test("payload: a refused record key says what its rule is", () => {
  const key = "k".repeat(65);
  assert.deepEqual(errorsOf(withParams({ customFields: { [key]: "x" } })), [{
    path: `context.environment.parameters.customFields.${key}`,
    code: "invalid_key",
    message: "this key: at most 64 characters",
  }]);
});
