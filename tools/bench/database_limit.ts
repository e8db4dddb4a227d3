/**
 * The launch's database limit: launch_apply alone, called by pgbench with no HTTP and no service,
 * at the launch rows' connection counts. Its inputs are built as the service builds them (the
 * bench's launch payloads, mapped and parsed by the launch's own steps, server/launch/flow.ts
 * launchInput, db/queries/launch.ts launchApplyArgs), each distinct and single-use (nonce, login
 * token, new agents and customers), stored in a table and taken in turn from a sequence.
 */
import type postgres from "postgres";
import { launchApplyArgs } from "../../db/queries/launch.ts";
import { PORTAL_LOGIN_HOURS } from "../../server/auth/cookies.ts";
import { newLoginToken } from "../../server/auth/logins.ts";
import { adapterOf } from "../../server/callbacks/adapters/registry.ts";
import { launchInput } from "../../server/launch/flow.ts";
import { checkFreshness } from "../../server/launch/freshness.ts";
import { parseLaunchPayload } from "../../server/launch/payload.ts";
import { launchPayloads } from "./launch_data.ts";

/** The table and sequence the pgbench script reads its inputs from. */
const TABLE = "bench_launch_inputs";
const SEQUENCE = "bench_launch_input_seq";

/**
 * The launch_apply argument for each of `count` launch payloads (launch_data.ts, numbered from
 * `first`), as the service would send it for app `app` (replay protection `required`).
 */
export function launchApplyInputs(
  app: { id: number; appName: string },
  count: number,
  minSession: number,
  stamp: string,
  first = 0,
): string[] {
  const adapter = adapterOf("default");
  const now = new Date();
  return launchPayloads(count, minSession, stamp, first).map((raw) => {
    const mapped = adapter.mapLaunch(raw);
    const parsed = parseLaunchPayload(mapped.payload);
    const freshness = checkFreshness(
      { replayProtection: "required", maxAgeSeconds: 3600 },
      parsed.freshness,
      "",
      now,
    );
    const input = launchInput(
      parsed,
      {
        appId: app.id,
        appName: app.appName,
        clientAddress: "127.0.0.1",
        userAgent: null,
        payload: mapped.logged,
        warnings: mapped.warnings,
        keyUsed: "current",
        freshness,
        crm: null,
      },
      newLoginToken(PORTAL_LOGIN_HOURS),
      false,
    );
    return JSON.stringify(launchApplyArgs(input));
  });
}

/**
 * Stores `count` distinct inputs in the bench database and writes the pgbench script that
 * calls launch_apply with the next one each time; answers the script's path.
 */
export async function prepareDatabaseLimit(
  bench: postgres.Sql,
  app: { id: number; appName: string },
  count: number,
  minSession: number,
  stamp: number,
  tmp: string,
): Promise<string> {
  await bench.unsafe(`create table ${TABLE} (id bigint primary key, l jsonb not null)`);
  await bench.unsafe(`create sequence ${SEQUENCE}`);
  const batch = 2_000;
  for (let first = 0; first < count; first += batch) {
    const texts = launchApplyInputs(
      app,
      Math.min(batch, count - first),
      minSession,
      `db${stamp}`,
      first,
    );
    await bench`
      insert into bench_launch_inputs (id, l)
      select ${first} + n, x::jsonb from unnest(${texts}::text[]) with ordinality as t(x, n)`;
  }
  await bench`analyze bench_launch_inputs`;
  const script = `${tmp}/launch_apply.sql`;
  // The scalar subquery draws one number per call; the primary key finds its input.
  await Deno.writeTextFile(
    script,
    `select launch_apply(l) from ${TABLE} where id = (select nextval('${SEQUENCE}'));\n`,
  );
  return script;
}

/** Calls launch_apply with stored input `id` on `sql` (a transaction, to roll it back). */
export async function applyStoredInput(
  sql: postgres.Sql | postgres.TransactionSql,
  id: number,
): Promise<void> {
  await sql.unsafe(`select launch_apply(l) from ${TABLE} where id = $1`, [id]);
}

/** Throws unless every call so far found an input of its own (none ran past the table). */
export async function checkInputsSufficed(bench: postgres.Sql, count: number): Promise<number> {
  const [{ used }] = await bench.unsafe(
    `select case when is_called then last_value else 0 end::int as used from ${SEQUENCE}`,
  );
  if (used > count) {
    throw new Error(`launch_apply (database limit): ${used} calls, only ${count} inputs`);
  }
  return used;
}
