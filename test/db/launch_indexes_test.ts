/**
 * The launch log's indexes after migration 00026 (tools/bench/results/history.md, "launch-table
 * indexes"): the ones a launch writes, and the launch log's filters still read through an index,
 * also in a generic plan (the statement as db/queries/launch_log.ts sends it, captured from the
 * driver).
 */
import assert from "node:assert/strict";
import { backends } from "../helpers/db.ts";
import { migrate } from "../../db/migrate.ts";
import type { Sql } from "../../db/mod.ts";
import { type LaunchLogFilter, listLaunches } from "../../db/queries/launch_log.ts";

const name = (backend: string, what: string) => `launch indexes (${backend}) ${what}`;

/** 20,000 launch records of two apps: one in 20 refused, one in 50 with warnings. */
async function launchLog(sql: Sql): Promise<void> {
  await sql`insert into apps (app_name, name, auth_type, api_key_sealed)
    values ('busy', 'Busy', 'signed_request', 'x'), ('rare', 'Rare', 'signed_request', 'x')`;
  await sql`
    insert into launches (app_id, app_name, outcome, warnings)
    select a.id, a.app_name, case when g % 20 = 1 then 'refused' else 'ok' end,
      case when g % 50 = 0 then '[{"code": "x"}]'::jsonb else '[]'::jsonb end
    from generate_series(1, 20000) g
    join apps a on a.app_name = case when g % 100 = 0 then 'rare' else 'busy' end`;
  await sql`analyze launches`;
}

/**
 * The plan of listLaunches(filter) for the statement the driver sent: a generic plan (as a
 * prepared statement gets after its first runs), or with `custom` the plan for these values.
 */
async function planOf(
  sql: Sql,
  queries: string[],
  filter: LaunchLogFilter,
  custom = false,
): Promise<string> {
  queries.length = 0;
  await listLaunches(sql, filter, 50);
  const text = queries.find((q) => q.includes("from launches"));
  assert.ok(text, "listLaunches sent no statement");
  const params = [...text.matchAll(/\$(\d+)/g)].map((m) => Number(m[1]));
  const count = params.length ? Math.max(...params) : 0;
  return await sql.begin(async (tx) => {
    await tx.unsafe(
      `set local plan_cache_mode = ${custom ? "force_custom_plan" : "force_generic_plan"}`,
    );
    await tx.unsafe(`prepare launch_log_page as ${text}`);
    const values = {
      outcome: filter.outcome,
      app: filter.app,
    };
    // The filter's values in the order the statement binds them, then the limit.
    const args = [
      ...(filter.app ? [values.app] : []),
      ...(filter.outcome && filter.outcome !== "ok" ? [values.outcome] : []),
      50,
    ].slice(0, count).map((v) => typeof v === "number" ? String(v) : `'${v}'`);
    const rows = await tx.unsafe(`explain (costs off) execute launch_log_page(${args.join(", ")})`);
    await tx.unsafe(`deallocate launch_log_page`);
    return rows.map((r) => r["QUERY PLAN"]).join("\n");
  });
}

for (const backend of backends) {
  Deno.test(name(backend.name, "are the primary key, app name, refusals, warnings"), async () => {
    const db = await backend.open();
    try {
      await migrate(db.sql);
      const rows = await db.sql<{ name: string; definition: string }[]>`
        select indexname as name, indexdef as definition from pg_indexes
        where tablename = 'launches' order by indexname`;
      assert.deepEqual(rows.map((r) => r.name), [
        "launches_app_name_id_idx",
        "launches_pkey",
        "launches_refused_id_idx",
        "launches_with_warnings_idx",
      ]);
      const refused = rows.find((r) => r.name === "launches_refused_id_idx")!;
      assert.match(refused.definition, /WHERE \(outcome <> 'ok'::text\)/);
    } finally {
      await db.close();
    }
  });

  Deno.test(name(backend.name, "serve the launch log's filters"), async () => {
    const queries: string[] = [];
    const db = await backend.open({ onQuery: (q) => queries.push(q) });
    try {
      await migrate(db.sql);
      await launchLog(db.sql);
      const refused = await planOf(db.sql, queries, { outcome: "refused" });
      assert.match(refused, /launches_refused_id_idx/);
      const ok = await planOf(db.sql, queries, { outcome: "ok" });
      assert.match(ok, /Index Scan Backward using launches_pkey/);
      // A rare app's name: its plan (a generic plan assumes every app is as common as any).
      const byApp = await planOf(db.sql, queries, { app: "Rare" }, true);
      assert.match(byApp, /launches_app_name_id_idx/);
      const newest = await planOf(db.sql, queries, {});
      assert.match(newest, /Index Scan Backward using launches_pkey/);
    } finally {
      await db.close();
    }
  });

  Deno.test(name(backend.name, "still find refusals and ok launches by outcome"), async () => {
    const db = await backend.open();
    try {
      await migrate(db.sql);
      await launchLog(db.sql);
      const refused = await listLaunches(db.sql, { outcome: "refused" }, 50);
      assert.equal(refused.length, 50);
      assert.ok(refused.every((r) => r.outcome === "refused"));
      const ok = await listLaunches(db.sql, { outcome: "ok", app: "rare" }, 500);
      assert.equal(ok.length, 200);
      assert.ok(ok.every((r) => r.outcome === "ok" && r.appName === "rare"));
    } finally {
      await db.close();
    }
  });
}
