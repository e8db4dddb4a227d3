/**
 * Refusals: launch_apply is the launch's only decider and reports every refusal it finds as one
 * list; server/launch/refusals.ts is the one table that words them.
 */
import assert from "node:assert/strict";
import { backends } from "../../helpers/db.ts";
import { uniqueId } from "../../helpers/shared.ts";
import { delta, freshPayload, launchFixtures } from "./fixture.ts";
import { refusalError, REFUSALS } from "../../../server/launch/refusals.ts";

const opts = { sanitizeOps: false, sanitizeResources: false };

Deno.test("refusals: the table words exactly the codes launch_apply reports", async () => {
  const sql = await Deno.readTextFile(
    new URL("../../../db/functions/launch_apply.sql", import.meta.url),
  );
  // Steps 1 and 2 decide; step 3's warnings have codes of their own.
  const deciding = sql.slice(sql.indexOf("-- 1. Lookups"), sql.indexOf("-- 3. The identity"));
  const reported = new Set(
    [...deciding.matchAll(/'code', '([a-z_]+)'|"code": "([a-z_]+)"/g)].map((m) => m[1] ?? m[2]),
  );
  assert.deepEqual([...reported].sort(), Object.keys(REFUSALS).sort());
});

Deno.test("refusals: a lone refusal answers as the protocol documents it", () => {
  assert.deepEqual(refusalError([{ code: "session_not_found", value: 9 }]).body(), {
    code: "session_not_found",
    message: "Session 9 not found",
  });
  const replay = refusalError([{ code: "launch_replayed" }]);
  assert.equal(replay.status, 401);
  assert.equal(replay.code, "launch_replayed");
  const fields = refusalError([
    { code: "field_disabled", value: "externalSessionId" },
    { code: "field_disabled", value: "externalCustomerId" },
  ]);
  assert.equal(fields.status, 409);
  assert.match(fields.message, /Session Data\) and the external customer id field/);
  assert.equal(fields.errors, undefined);
});

Deno.test("refusals: several refusals answer the first one's code with every field", () => {
  const err = refusalError([
    { code: "session_not_found", value: 42 },
    { code: "unknown_custom_fields", value: "b" },
    { code: "unknown_custom_fields", value: "a" },
    { code: "invalid_paths", type: "tag", entry: 1, index: 0, value: "nosuch" },
    { code: "agent_is_admin", value: "boss@example.com", ids: [1] },
  ]);
  assert.equal(err.status, 404);
  assert.equal(err.code, "session_not_found");
  assert.deepEqual(err.errors?.map((e) => e.path), [
    "context.environment.parameters.sessionId",
    "context.environment.parameters.customFields.b",
    "context.environment.parameters.customFields.a",
    "context.environment.parameters.paths.search.1.search_values.0",
    "context.user.email",
  ]);
  assert.match(err.errors![3].message, /nosuch: no published path has this tag/);
});

Deno.test("refusals: a code the table does not know is a bug, not an answer", () => {
  assert.throws(() => refusalError([{ code: "made_up" }]), /launch_apply reported refusal/);
  assert.throws(() => refusalError([]), /without saying why/);
});

for (const [backend, fixture] of launchFixtures(backends)) {
  Deno.test({
    name: `refusals: one launch gets every refusal at once, and writes only its failure record ` +
      `[${backend.name}]`,
    ...opts,
    async fn() {
      const f = await fixture();
      const boss = uniqueId("boss");
      await f.svc.db.sql`insert into users (role, external_id, email, first_name, last_name)
        values ('admin', ${boss}, ${`${boss}@example.com`}, 'Boss', 'Person')`;
      const p = freshPayload({
        sessionId: 987654321,
        customFields: { zeta: "1", priority: "high", alpha: "2" },
        paths: {
          search: [
            { search_type: "category_uid", search_values: [f.category.uid] },
            { search_type: "tag", search_values: ["printer", "nosuch-tag"] },
            { search_type: "path_uid", search_values: [crypto.randomUUID()] },
          ],
        },
      }, { email: `${boss}@example.com` });
      const before = await f.counts();
      const launched = await f.launchJson(p);
      assert.deepEqual(delta(before, await f.counts()), { launches: 1 }, "its failure record only");
      const dry = await f.dryRun(p);
      for (const { status, body } of [launched, dry]) {
        assert.equal(status, 404);
        assert.equal(body.code, "session_not_found");
        assert.equal(body.message, "Session 987654321 not found");
        assert.deepEqual(body.errors.map((e: { path: string }) => e.path), [
          "context.environment.parameters.sessionId",
          "context.environment.parameters.customFields.zeta",
          "context.environment.parameters.customFields.alpha",
          "context.environment.parameters.paths.search.1.search_values.1",
          "context.environment.parameters.paths.search.2.search_values.0",
          "context.user.email",
        ]);
      }
    },
  });
}
