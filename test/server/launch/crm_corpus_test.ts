/**
 * The CRM payload corpus (test/fixtures/crm_payloads.json): payloads as real CRMs and CTI tools
 * send them, each launched through the endpoint with its outcome, warnings and stored rows checked.
 */
import assert from "node:assert/strict";
import { backends } from "../../helpers/db.ts";
import type { Json } from "../../helpers/payload.ts";
import { uniqueId } from "../../helpers/shared.ts";
import { signLaunch } from "../../helpers/launch.ts";
import { type LaunchFixture, launchFixtures } from "./fixture.ts";

const corpus = JSON.parse(
  await Deno.readTextFile(new URL("../../fixtures/crm_payloads.json", import.meta.url)),
);
const fixtures = launchFixtures(backends);

/** Replaces $U in every string and key of `value`; "$SESSION" and "$NOW" (Unix seconds). */
function fill(value: Json, vars: Record<string, string>): Json {
  if (typeof value === "string") {
    if (value === "$SESSION") return vars.$SESSION;
    if (value === "$NOW") return Math.floor(Date.now() / 1000);
    return value.replaceAll("$U", vars.$U);
  }
  if (Array.isArray(value)) return value.map((v) => fill(v, vars));
  if (value && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k.replaceAll("$U", vars.$U), fill(v, vars)]),
    );
  }
  return value;
}

/** The payload of a case (or of one of its 'before' launches). */
function payloadOf(c: Json, vars: Record<string, string>): Json {
  if (c.payload) return fill(c.payload, vars);
  const base = corpus.base;
  return {
    algorithm: "HMACSHA256",
    context: {
      user: fill({ ...base.user, ...c.user }, vars),
      environment: { parameters: fill({ ...base.params, ...c.params }, vars) },
    },
  };
}

/** Signs `payload` and damages the signed_request as the case's transport does. */
async function signedRequest(f: LaunchFixture, payload: Json, transport?: string) {
  let signed = await signLaunch(payload, f.app.apiKey);
  if (transport === "spaces") {
    // The case needs a '+' to lose: vary referenceId until the Base64 text has one.
    for (let i = 0; !signed.includes("+"); i++) {
      payload.context.environment.parameters.referenceId = `R${i}`;
      signed = await signLaunch(payload, f.app.apiKey);
    }
    return signed.replaceAll("+", " ");
  }
  if (transport === "wrapped") return signed.replace(/(.{76})/g, "$1\r\n");
  return signed;
}

async function launch(f: LaunchFixture, signed: string) {
  const res = await f.svc.request("/portal/api/auth/app/crm", {
    method: "POST",
    headers: { Accept: "*/*" },
    body: new URLSearchParams({ signed_request: signed }),
  });
  return { status: res.status, body: await res.json() };
}

async function checkRows(f: LaunchFixture, checks: Json, body: Json, vars: Record<string, string>) {
  const sql = f.svc.db.sql;
  const want = fill(checks, vars);
  for (const [name, expected] of Object.entries(want as Record<string, Json>)) {
    let actual: Json;
    if (name === "devices") {
      [{ count: actual }] = await sql`select count(*)::int from devices
        where session_id = ${body.sessionId}`;
    } else if (name === "sessionReferenceId") {
      [{ referenceId: actual }] = await sql`select reference_id from sessions
        where id = ${body.sessionId}`;
    } else if (name === "agentExternalId") {
      [{ externalId: actual }] =
        await sql`select external_id from users where id = ${body.agentId}`;
    } else if (name === "customerExternalId") {
      [{ externalId: actual }] = await sql`select external_id from customers
        where id = ${body.customerId}`;
    } else if (name === "customerPhone1") {
      [{ phone1: actual }] = await sql`select phone1 from customers where id = ${body.customerId}`;
    } else if (name === "agentEmailOf") {
      const rows = await sql`select external_id, email from users
        where external_id = any(${Object.keys(expected)}::text[])`;
      actual = Object.fromEntries(rows.map((r) => [r.externalId, r.email]));
    } else if (name === "customerExternalIdOf") {
      const rows = await sql`select email, external_id from customers
        where email = any(${Object.keys(expected)}::text[])`;
      actual = Object.fromEntries(rows.map((r) => [r.email, r.externalId]));
    } else if (name === "teamName") {
      const rows = await sql`select team_id, name from teams
        where team_id = any(${Object.keys(expected)}::text[])`;
      actual = Object.fromEntries(rows.map((r) => [r.teamId, r.name]));
    } else {
      throw new Error(`unknown check ${name}`);
    }
    assert.deepEqual(actual, expected, name);
  }
}

for (const backend of backends) {
  for (const c of corpus.cases as Json[]) {
    Deno.test({
      name: `CRM corpus: ${c.name} [${backend.name}]`,
      sanitizeOps: false,
      sanitizeResources: false,
      async fn() {
        const f = await fixtures.get(backend)!();
        const vars: Record<string, string> = { $U: uniqueId("u"), $SESSION: "" };
        for (const [i, before] of (c.before ?? []).entries()) {
          const done = await launch(f, await signedRequest(f, payloadOf(before, vars)));
          assert.equal(done.status, 200, `before ${i}: ${JSON.stringify(done.body)}`);
          if (i === 0) vars.$SESSION = String(done.body.sessionId);
        }
        const { status, body } = await launch(
          f,
          await signedRequest(f, payloadOf(c, vars), c.transport),
        );
        const e = c.expect;
        assert.equal(status, e.status, JSON.stringify(body));
        if (e.body) assert.deepEqual(body, e.body);
        if (e.code) assert.equal(body.code, e.code);
        if (e.errors) {
          assert.deepEqual(
            body.errors.map((x: Json) => ({ path: x.path, code: x.code })),
            e.errors,
          );
        }
        if (status !== 200) return;
        const warnings = body.warnings as Json[];
        if (e.warnings) assert.deepEqual(warnings.map((w) => w.code).sort(), e.warnings);
        if (e.warningPaths) assert.deepEqual(warnings.map((w) => w.path).sort(), e.warningPaths);
        const [log] = await f.svc.db.sql`select warnings from launches where id = ${body.launchId}`;
        assert.deepEqual(log.warnings, warnings, "the launch log records the same warnings");
        if (e.checks) await checkRows(f, e.checks, body, vars);
      },
    });
  }
}
