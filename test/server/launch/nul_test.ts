/**
 * U+0000 or half a surrogate pair in a launch (PostgreSQL cannot store either): refused naming the
 * field, nothing written but the launch record.
 */
import assert from "node:assert/strict";
import { backends } from "../../helpers/db.ts";
import { uniqueId } from "../../helpers/shared.ts";
import { signLaunch } from "../../helpers/launch.ts";
import { delta, freshPayload, launchFixtures } from "./fixture.ts";

const PARAMS = "context.environment.parameters";

for (const [backend, fixture] of launchFixtures(backends)) {
  Deno.test({
    name: `launch: U+0000 in a custom field, team or device name is refused with 400 naming ` +
      `the field, and writes only the launch record [${backend.name}]`,
    sanitizeOps: false,
    sanitizeResources: false,
    async fn(t) {
      const f = await fixture();
      const cases: [string, Record<string, unknown>, string][] = [
        ["custom field", { customFields: { priority: "hi\u0000gh" } }, "customFields.priority"],
        ["device name", { deviceComputer: { name: "PC\u00007" } }, "deviceComputer.name"],
        [
          "team name",
          { user: { teams: [{ teamId: uniqueId("t"), teamName: "Team\u0000A" }] } },
          "user.teams.0.teamName",
        ],
        ["a key", { customFields: { "pri\u0000ority": "x" } }, "customFields.pri\u0000ority"],
      ];
      for (const [label, params, field] of cases) {
        await t.step(label, async () => {
          const p = freshPayload(params);
          const dry = await f.dryRun(p);
          assert.equal(dry.status, 400, JSON.stringify(dry.body));
          assert.equal(dry.body.code, "invalid_payload");
          assert.deepEqual(dry.body.errors.map((e: { path: string; code: string }) => e), [{
            path: `${PARAMS}.${field}`,
            code: "nul_character",
            message: dry.body.errors[0].message,
          }]);
          assert.match(dry.body.errors[0].message, /U\+0000.*remove/);

          const before = await f.counts();
          const { status, body } = await f.launchJson(p);
          assert.equal(status, 400, JSON.stringify(body));
          assert.equal(body.errors[0].code, "nul_character");
          assert.equal(body.errors[0].path, `${PARAMS}.${field}`);
          // The refusal is recorded (its payload with U+FFFD: the log must not be lost), and
          // nothing else is written.
          assert.deepEqual(delta(before, await f.counts()), { launches: 1 });
          const [record] = await f.svc.db.sql`select outcome, payload::text as payload
            from launches order by id desc limit 1`;
          assert.equal(record.outcome, "invalid_payload");
          assert.ok(!record.payload.includes("\\u0000"));
        });
      }
    },
  });
}

for (const [backend, fixture] of launchFixtures(backends)) {
  Deno.test({
    name: `launch: half a surrogate pair anywhere, an ignored key too, is refused with 400 ` +
      `naming the field, and the refusal is recorded [${backend.name}]`,
    sanitizeOps: false,
    sanitizeResources: false,
    async fn(t) {
      const f = await fixture();
      const cases: [string, Record<string, unknown>, string][] = [
        [
          "custom field",
          { customFields: { priority: "hi\ud800" } },
          `${PARAMS}.customFields.priority`,
        ],
        ["a low half", { deviceComputer: { name: "\udc00PC" } }, `${PARAMS}.deviceComputer.name`],
        ["an ignored key", { extraThing: "x\udbff" }, `${PARAMS}.extraThing`],
      ];
      for (const [label, params, path] of cases) {
        await t.step(label, async () => {
          const p = freshPayload(params);
          const dry = await f.dryRun(p);
          assert.equal(dry.status, 400, JSON.stringify(dry.body));
          assert.equal(dry.body.errors[0].code, "unpaired_surrogate");
          assert.equal(dry.body.errors[0].path, path);
          assert.match(dry.body.errors[0].message, /surrogate pair.*whole character/);
          const before = await f.counts();
          const { status, body } = await f.launchJson(p);
          assert.equal(status, 400, JSON.stringify(body));
          assert.equal(body.errors[0].code, "unpaired_surrogate");
          // Recorded with U+FFFD in place of the half (the log must not be lost).
          assert.deepEqual(delta(before, await f.counts()), { launches: 1 });
          const [record] = await f.svc.db.sql`select outcome, payload::text as payload
            from launches order by id desc limit 1`;
          assert.equal(record.outcome, "invalid_payload");
          assert.ok(record.payload.includes("\uFFFD"));
        });
      }
      await t.step("a whole emoji is text", async () => {
        const p = freshPayload({ customFields: { priority: "urgent \u{1F525}" } });
        assert.equal((await f.dryRun(p)).status, 200);
      });
      await t.step("a key named __proto__ is refused, not dropped", async () => {
        // JSON.parse makes it an own key (an object literal would set the prototype instead).
        const p = freshPayload({ customFields: JSON.parse('{"__proto__":{"priority":"x"}}') });
        const dry = await f.dryRun(p);
        assert.equal(dry.status, 400, JSON.stringify(dry.body));
        assert.deepEqual([dry.body.errors[0].path, dry.body.errors[0].code], [
          `${PARAMS}.customFields.__proto__`,
          "reserved_key",
        ]);
      });
    },
  });
}

for (const [backend, fixture] of launchFixtures(backends)) {
  Deno.test({
    name: `launch: a crm_standard app's request is checked as signed, its own keys too ` +
      `[${backend.name}]`,
    sanitizeOps: false,
    sanitizeResources: false,
    async fn() {
      const f = await fixture();
      const appName = uniqueId("canvas");
      const res = await f.svc.api("POST", "/api/v1/admin/apps", f.adminToken, {
        appName,
        name: "Canvas",
        authType: "signed_request",
        implementor: "crm_standard",
      });
      const app = await res.json();
      assert.equal(res.status, 201, JSON.stringify(app));
      const canvas = (extra: Record<string, unknown>) => ({
        algorithm: "HMACSHA256",
        issuedAt: Math.floor(Date.now() / 1000),
        client: { instanceUrl: "https://crm.example.com", oauthToken: "tok" },
        context: {
          user: { userId: uniqueId("u"), email: `${uniqueId("a")}@example.com` },
          environment: { parameters: { referenceNumber: uniqueId("R") } },
        },
        ...extra,
      });
      const cases: [Record<string, unknown>, string, string][] = [
        [
          { client: { instanceUrl: "https://crm.example.com", other: "a\u0000b" } },
          "client.other",
          "nul_character",
        ],
        [{ organizationId: "00D\u0000" }, "organizationId", "nul_character"],
        [
          { client: { instanceUrl: "https://crm.example.com", oauthToken: "t\u0000k" } },
          "client.oauthToken",
          "nul_character",
        ],
        [{ "a\u0000": 1 }, "a\u0000", "nul_character"],
        [{ organizationId: "00D\ud800" }, "organizationId", "unpaired_surrogate"],
      ];
      for (const [extra, path, code] of cases) {
        const signed = await signLaunch(canvas(extra), app.apiKey);
        const answer = await f.svc.request(`/portal/api/auth/app/${appName}/validate`, {
          method: "POST",
          body: new URLSearchParams({ signed_request: signed }),
        });
        const body = await answer.json();
        assert.equal(answer.status, 400, `${path}: ${JSON.stringify(body)}`);
        assert.equal(body.code, "invalid_payload");
        assert.deepEqual([body.errors[0].path, body.errors[0].code], [path, code]);
      }
    },
  });
}
