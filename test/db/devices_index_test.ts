/**
 * Migration 00027: devices keeps its primary key and its unique (session_id, kind, serial) index
 * only; the one on session_id alone repeated that index's leading column. A session's devices
 * are still read through an index (the session resource's subquery, generic and custom plans),
 * and deleting a session still removes its devices.
 */
import assert from "node:assert/strict";
import { backends } from "../helpers/db.ts";
import { migrate } from "../../db/migrate.ts";
import type { Sql } from "../../db/mod.ts";

const opts = { sanitizeOps: false, sanitizeResources: false };

/** 2,000 sessions of one app and customer, three devices each. */
async function sessionsWithDevices(sql: Sql): Promise<void> {
  const [app] = await sql`insert into apps (app_name, name, auth_type, api_key_sealed)
    values ('devices', 'Devices', 'signed_request', 'x') returning id`;
  const [customer] = await sql`insert into customers (app_id, external_id, email, first_name,
    last_name) values (${app.id}, 'c1', 'c1@example.com', 'C', 'One') returning id`;
  await sql`insert into sessions (customer_id, app_id)
    select ${customer.id}, ${app.id} from generate_series(1, 2000)`;
  await sql`insert into devices (session_id, kind, serial, properties)
    select s.id, k, s.id || '-' || k || '-' || n, '{}'::jsonb
    from sessions s, (values ('computer', 1), ('mobile', 2), ('mobile', 3)) d(k, n)`;
  await sql`analyze devices`;
}

for (const backend of backends) {
  Deno.test(
    `devices index: primary key and (session, kind, serial) only [${backend.name}]`,
    opts,
    async () => {
      const db = await backend.open();
      try {
        await migrate(db.sql);
        const rows = await db.sql<{ name: string }[]>`
        select indexname as name from pg_indexes where tablename = 'devices' order by 1`;
        assert.deepEqual(rows.map((r) => r.name), [
          "devices_pkey",
          "devices_session_kind_serial_key",
        ]);
      } finally {
        await db.close();
      }
    },
  );

  Deno.test(
    `devices index: a session's devices are read through it [${backend.name}]`,
    opts,
    async () => {
      const db = await backend.open();
      try {
        await migrate(db.sql);
        await sessionsWithDevices(db.sql);
        const [{ id }] = await db.sql`select max(id) as id from sessions`;
        for (const mode of ["force_custom_plan", "force_generic_plan"]) {
          const plan = await db.sql.begin(async (tx) => {
            await tx.unsafe(`set local plan_cache_mode = ${mode}`);
            await tx.unsafe(`prepare session_devices as
            select json_agg(d.id order by d.id) from devices d where d.session_id = $1`);
            const rows = await tx.unsafe(
              `explain (costs off) execute session_devices(${Number(id)})`,
            );
            await tx.unsafe(`deallocate session_devices`);
            return rows.map((r) => r["QUERY PLAN"]).join("\n");
          });
          assert.match(plan, /devices_session_kind_serial_key/, `${mode}:\n${plan}`);
        }
        // The cascade from sessions finds the session's devices too.
        await db.sql`delete from sessions where id = ${id}`;
        const [{ n }] = await db
          .sql`select count(*)::int as n from devices where session_id = ${id}`;
        assert.equal(n, 0);
      } finally {
        await db.close();
      }
    },
  );
}
