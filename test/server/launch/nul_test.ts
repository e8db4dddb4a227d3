/** U+0000 in a launch (PostgreSQL text cannot hold it): refused naming the field, nothing written. */
import assert from "node:assert/strict";
import { backends } from "../../helpers/db.ts";
import { uniqueId } from "../../helpers/shared.ts";
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
