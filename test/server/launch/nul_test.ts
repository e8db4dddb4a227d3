/** U+0000 in a launch (PostgreSQL text cannot hold it): stored as U+FFFD with a warning, no 500. */
import assert from "node:assert/strict";
import { backends } from "../../helpers/db.ts";
import { uniqueId } from "../../helpers/shared.ts";
import { freshPayload, launchFixtures } from "./fixture.ts";

for (const [backend, fixture] of launchFixtures(backends)) {
  Deno.test({
    name: `launch: U+0000 in a custom field, team or device name is stored as U+FFFD, with a ` +
      `warning [${backend.name}]`,
    sanitizeOps: false,
    sanitizeResources: false,
    async fn() {
      const f = await fixture();
      const teamId = uniqueId("t");
      const p = freshPayload({
        customFields: { priority: "hi\u0000gh" },
        deviceComputer: { name: "PC\u00007" },
        user: { teams: [{ teamId, teamName: "Team\u0000A" }] },
      });
      const dry = await f.dryRun(p);
      assert.equal(dry.status, 200, JSON.stringify(dry.body));
      assert.ok(dry.body.warnings.some((w: { code: string }) => w.code === "nul_replaced"));
      const { status, body } = await f.launchJson(p);
      assert.equal(status, 200, JSON.stringify(body));
      const [field] = await f.svc.db.sql`select value from session_custom_fields
        where session_id = ${body.sessionId} and name = 'priority'`;
      assert.equal(field.value, "hi\uFFFDgh");
      const [team] = await f.svc.db.sql`select name from teams where team_id = ${teamId}`;
      assert.equal(team.name, "Team\uFFFDA");
      const [launch] = await f.svc.db
        .sql`select warnings from launches where id = ${body.launchId}`;
      assert.ok(launch.warnings.some((w: { code: string }) => w.code === "nul_replaced"));
    },
  });
}
