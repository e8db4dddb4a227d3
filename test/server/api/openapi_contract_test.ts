/**
 * The published contract is the real one: every operation of the service's own OpenAPI document
 * is called on the live app with a valid request and with bad ones (no token, an unknown token, a
 * malformed Authorization header, the wrong scope, unknown and malformed path parameters, invalid
 * queries, malformed JSON, the wrong Content-Type, unknown fields, a body over every limit,
 * U+0000 in text), and each answer must have a status the operation declares, the declared
 * required headers, and a body valid against the declared schema of its content type, checked by
 * a JSON Schema 2020-12 validator (ajv, contract_validator.ts), not by the zod schemas the
 * document is generated from. One service for the file.
 */
import assert from "node:assert/strict";
import { pglite } from "../../helpers/db.ts";
import { createTestApp, launchOk } from "../../helpers/launch.ts";
import { type Json, launchPayload } from "../../helpers/payload.ts";
import { startTestService } from "../../helpers/service.ts";
import { sharedFixture, uniqueId } from "../../helpers/shared.ts";
import { type Auth, CASES, type Ctx, type Probe, type Request } from "./contract_cases.ts";
import { ContractValidator } from "./contract_validator.ts";

const opts = { sanitizeOps: false, sanitizeResources: false };

interface Fixture {
  ctx: Ctx;
  validator: ContractValidator;
}

const fixture = sharedFixture<Fixture>(async () => {
  const svc = await startTestService(
    pglite,
    { CALLBACK_ALLOW_PRIVATE_NETWORKS: "true", CALLBACK_TIMEOUT_MS: "1000" },
    {},
    { deliveryWorker: false },
  );
  const tokens = {
    full: await svc.adminToken(),
    read: await svc.adminToken("sessions:read"),
    adminOnly: await svc.adminToken("admin"),
  };
  const app = await createTestApp(svc, tokens.full, uniqueId("crm"));
  const launch = await launchOk(svc, app, launchPayload());
  // Port 9 (discard) refuses: the test event's attempt fails at once.
  const callbackApp = await createTestApp(svc, tokens.full, uniqueId("cb"), {
    callbackUrl: "http://127.0.0.1:9/hooks/{referenceId}",
  });
  await launchOk(svc, callbackApp, launchPayload({ referenceId: uniqueId("R") }));
  const [event] = await svc.db.sql`select max(id)::int as id from callback_events`;
  const category = await (await svc.api("POST", "/api/v1/admin/path-categories", tokens.full, {
    name: "Printers",
  })).json();
  const doc = await (await svc.request("/api/v1/openapi.json")).json();
  return {
    ctx: {
      svc,
      tokens,
      app,
      callbackApp,
      launch,
      deliveryId: event.id,
      categoryUid: category.uid,
    },
    validator: new ContractValidator(doc),
  };
}, async (f) => await f.ctx.svc.close());

/** The scope an operation's bearer token needs, or null when it takes no bearer token. */
function scopeOf(op: Json): string | null {
  return op.security?.find((r: Json) => r.oauth2)?.oauth2[0] ?? null;
}

/** Well-formed path parameter values that name nothing, and malformed ones, by name. */
const UNKNOWN: Record<string, string> = {
  id: "999999999",
  remoteId: "999999999",
  appName: "no-such-app",
  uid: "00000000-0000-4000-8000-000000000000",
  slug: "no-such-org",
  name: "noSuchField",
};
const MALFORMED: Record<string, string> = {
  id: "abc",
  remoteId: "abc",
  appName: "bad name!",
  uid: "not-a-uuid",
  slug: "x".repeat(64),
  name: "9bad",
};

/** `value` with its first string (depth first) replaced by one holding U+0000, or null. */
function withNul(value: unknown): unknown {
  if (typeof value === "string") return `a\u0000${value}`;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const v = withNul(value[i]);
      if (v !== null) return value.map((x, j) => (j === i ? v : x));
    }
    return null;
  }
  if (value && typeof value === "object") {
    for (const [k, x] of Object.entries(value)) {
      const v = withNul(x);
      if (v !== null) return { ...value, [k]: v };
    }
  }
  return null;
}

/** The bad requests every operation gets, derived from its declaration and a valid `good`. */
function genericProbes(op: Json, good: Request): Probe[] {
  const probes: Probe[] = [];
  const base = { params: good.params, query: good.query, json: good.json, form: good.form };
  if (scopeOf(op)) {
    probes.push(
      { ...base, what: "no bearer token", auth: "none", expect: 401 },
      { ...base, what: "an unknown token", auth: "unknown", expect: 401 },
      { ...base, what: "a malformed Authorization header", auth: "malformed", expect: 400 },
      {
        ...base,
        what: "a token without the scope",
        auth: scopeOf(op) === "admin" ? "read" : "adminOnly",
        expect: 403,
      },
    );
  }
  const params: Json[] = op.parameters ?? [];
  for (const p of params.filter((p) => p.in === "path")) {
    if (!(p.name in UNKNOWN && p.name in MALFORMED)) {
      throw new Error(`give UNKNOWN and MALFORMED a value for the path parameter ${p.name}`);
    }
    probes.push(
      {
        ...base,
        what: `an unknown ${p.name}`,
        params: { ...base.params, [p.name]: UNKNOWN[p.name] },
        expect: 404,
      },
      {
        ...base,
        what: `a malformed ${p.name}`,
        params: { ...base.params, [p.name]: MALFORMED[p.name] },
        expect: 400,
      },
    );
  }
  const query = params.filter((p) => p.in === "query");
  if (query.some((p) => p.name === "limit")) {
    probes.push({ ...base, what: "limit 0", query: { ...good.query, limit: "0" }, expect: 400 });
    probes.push({
      ...base,
      what: "limit 201",
      query: { ...good.query, limit: "201" },
      expect: 400,
    });
  }
  const text = query.find((p) => p.schema?.type === "string" && !p.schema.enum);
  if (text) {
    probes.push({ ...base, what: `U+0000 in ${text.name}`, query: { [text.name]: "a\u0000b" } });
  }
  const content = op.requestBody?.content ?? {};
  if (content["application/json"]) {
    probes.push(
      { ...base, what: "malformed JSON", json: undefined, raw: json("{"), expect: 400 },
      {
        ...base,
        what: "the wrong Content-Type",
        json: undefined,
        raw: { type: "text/plain", body: JSON.stringify(good.json ?? {}) },
        expect: 415,
      },
      {
        ...base,
        what: "an unknown field",
        json: { ...good.json as Json, zzUnknown: 1 },
        expect: 400,
      },
      {
        ...base,
        what: "a body over 256 KiB",
        json: { ...good.json as Json, zzPad: "x".repeat(300 * 1024) },
      },
    );
    const nul = withNul(good.json);
    if (nul !== null) probes.push({ ...base, what: "U+0000 in the body", json: nul });
  }
  if (content["application/x-www-form-urlencoded"]) {
    probes.push(
      {
        ...base,
        what: "a JSON body",
        form: undefined,
        raw: json(JSON.stringify(good.form)),
        expect: 400,
      },
      {
        ...base,
        what: "a body over 16 KiB",
        form: { ...good.form, pad: "x".repeat(20 * 1024) },
        expect: 413,
      },
      { ...base, what: "U+0000 in the body", form: withNul(good.form) as Record<string, string> },
    );
  }
  return probes;
}

function json(body: string) {
  return { type: "application/json", body };
}

/** Sends `probe` to `method` `template` and answers the response and its body. */
async function send(
  ctx: Ctx,
  method: string,
  template: string,
  op: Json,
  probe: Probe,
): Promise<{ res: Response; text: string }> {
  let path = template;
  for (const [name, value] of Object.entries(probe.params ?? {})) {
    path = path.replace(`{${name}}`, encodeURIComponent(value));
  }
  const query = new URLSearchParams(probe.query ?? {}).toString();
  const headers = new Headers(probe.headers);
  if (scopeOf(op)) {
    const auth: Auth = probe.auth ?? "full";
    const value = auth === "none"
      ? null
      : auth === "unknown"
      ? "Bearer 0123456789abcdefghijklmnopqrstuvwxyzABCDEFG"
      : auth === "malformed"
      ? "Bearer not a token"
      : `Bearer ${ctx.tokens[auth]}`;
    if (value) headers.set("Authorization", value);
  }
  let body: BodyInit | undefined;
  if (probe.raw) {
    headers.set("Content-Type", probe.raw.type);
    body = probe.raw.body;
  } else if (probe.json !== undefined) {
    headers.set("Content-Type", "application/json");
    body = JSON.stringify(probe.json);
  } else if (probe.form) {
    body = new URLSearchParams(probe.form);
  }
  const res = await ctx.svc.request(`/api/v1${path}${query ? `?${query}` : ""}`, {
    method,
    headers,
    body,
  });
  return { res, text: await res.text() };
}

for (const [key, testCase] of Object.entries(CASES)) {
  const [method, path] = key.split(" ");
  Deno.test(`OpenAPI contract: ${key} answers as declared`, opts, async () => {
    const { ctx, validator } = await fixture();
    const op = validator.operation(method, path);
    assert.ok(op, `${key} is not in the document`);
    const probes = [
      ...genericProbes(op, await testCase.setup(ctx)),
      ...(await testCase.more?.(ctx) ?? []),
      { ...await testCase.setup(ctx), what: "a valid request", expect: testCase.ok },
    ];
    const problems: string[] = [];
    for (const probe of probes) {
      let answer: { res: Response; text: string } | undefined;
      const run = async () => {
        answer = await send(ctx, method, path, op, probe);
      };
      await (probe.around ? probe.around(run) : run());
      const { res, text } = answer!;
      const found = validator.check(method, path, res, text);
      if (probe.expect !== undefined && res.status !== probe.expect) {
        found.unshift(`answered ${res.status}, not ${probe.expect}: ${text.slice(0, 160)}`);
      }
      problems.push(...found.map((p) => `${probe.what}: ${p}`));
    }
    assert.deepEqual(problems, []);
  });
}

Deno.test(
  "OpenAPI contract: every operation has a case, and every case an operation",
  opts,
  async () => {
    const { validator } = await fixture();
    const documented: string[] = [];
    for (const [path, item] of Object.entries(validator.doc.paths) as [string, Json][]) {
      for (const method of Object.keys(item)) documented.push(`${method.toUpperCase()} ${path}`);
    }
    assert.deepEqual(documented.sort(), Object.keys(CASES).sort());
  },
);

Deno.test(
  "OpenAPI contract: every operation has a unique camelCase operationId",
  opts,
  async () => {
    const { validator } = await fixture();
    const seen = new Map<string, string>();
    const problems: string[] = [];
    for (const [path, item] of Object.entries(validator.doc.paths) as [string, Json][]) {
      for (const [method, op] of Object.entries(item) as [string, Json][]) {
        const key = `${method.toUpperCase()} ${path}`;
        const id = op.operationId;
        if (typeof id !== "string" || !/^[a-z][A-Za-z0-9]*$/.test(id)) {
          problems.push(`${key}: operationId ${JSON.stringify(id)}`);
        } else if (seen.has(id)) problems.push(`${key}: operationId ${id} is also ${seen.get(id)}`);
        else seen.set(id, key);
      }
    }
    assert.deepEqual(problems, []);
  },
);

Deno.test(
  "OpenAPI contract: every operation declares the shared responses it can answer",
  opts,
  async () => {
    const { validator } = await fixture();
    const problems: string[] = [];
    for (const [path, item] of Object.entries(validator.doc.paths) as [string, Json][]) {
      for (const [method, op] of Object.entries(item) as [string, Json][]) {
        const key = `${method.toUpperCase()} ${path}`;
        const declares = (status: string, ...headers: string[]) => {
          const response = op.responses[status];
          if (!response) return problems.push(`${key}: no ${status}`);
          for (const h of headers) {
            if (!response.headers?.[h]) problems.push(`${key}: ${status} without ${h}`);
          }
        };
        for (const [status, response] of Object.entries(op.responses) as [string, Json][]) {
          if (!response.headers?.["X-Request-Id"]) {
            problems.push(`${key}: ${status} without X-Request-Id`);
          }
        }
        declares("500");
        const params: Json[] = op.parameters ?? [];
        if (scopeOf(op)) {
          declares("400");
          declares("401", "WWW-Authenticate");
          declares("403", "WWW-Authenticate");
        }
        if (op.requestBody || params.some((p) => p.in !== "header")) declares("400");
        if (params.some((p) => p.in === "path")) declares("404");
        if (op.requestBody) declares("413");
        if (op.requestBody?.content["application/json"]) declares("415");
        if (op.requestBody?.content["application/x-www-form-urlencoded"]) {
          declares("401", "WWW-Authenticate");
          declares("429", "Retry-After");
        }
        if (op.responses["201"]) declares("201", "Location");
        if (op.responses["304"]) declares("200", "ETag");
      }
    }
    assert.deepEqual(problems, []);
  },
);
