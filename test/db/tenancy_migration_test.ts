/** Migration 00007 gives existing rows to their app, copying customers shared between apps. */
import assert from "node:assert/strict";
import { migrate, readMigrations } from "../../db/migrate.ts";
import { backends } from "../helpers/db.ts";

const opts = { sanitizeOps: false, sanitizeResources: false };

for (const backend of backends) {
  Deno.test({
    name: `migration 00007 attributes sessions, customers and agent ids to apps [${backend.name}]`,
    ...opts,
    async fn() {
      const db = await backend.open();
      try {
        const files = await readMigrations();
        const before = files.filter((m) => m.name < "00007");
        await migrate(db.sql, before);
        const sql = db.sql;
        const [a, b] = await sql`insert into apps (app_name, name, auth_type, api_key_sealed)
          values ('a', 'A', 'signed_request', 'x'), ('b', 'B', 'signed_request', 'x')
          returning id`;
        const [agent] = await sql`insert into users (role, external_id, email)
          values ('agent', 'ext-1', 'agent@example.com') returning id`;
        const [shared, orphan] = await sql`insert into customers (external_id, email) values
          ('C1', 'shared@example.org'), ('C2', 'orphan@example.org') returning id`;
        const sessions = await sql`insert into sessions (customer_id, app_id) values
          (${shared.id}, ${a.id}), (${shared.id}, ${b.id}), (${shared.id}, null),
          (${orphan.id}, null) returning id`;
        // The third session has no app, but its launch came from app b.
        await sql`insert into launches (app_id, app_name, outcome, agent_id, session_id) values
          (${b.id}, 'b', 'ok', ${agent.id}, ${sessions[2].id}),
          (${a.id}, 'a', 'ok', ${agent.id}, ${sessions[0].id})`;
        await migrate(db.sql, files);

        const rows = await sql`select s.id, s.app_id, c.app_id as customer_app, c.email
          from sessions s join customers c on c.id = s.customer_id order by s.id`;
        assert.deepEqual(rows.map((r) => [r.appId, r.customerApp, r.email]), [
          [a.id, a.id, "shared@example.org"],
          [b.id, b.id, "shared@example.org"],
          [b.id, b.id, "shared@example.org"],
          [null, null, "orphan@example.org"],
        ]);
        const copies = await sql`select app_id from customers
          where email = 'shared@example.org' order by app_id`;
        assert.deepEqual(copies.map((r) => r.appId), [a.id, b.id], "one customer per app");
        const ids = await sql`select app_id, external_id from agent_external_ids
          where user_id = ${agent.id} order by app_id`;
        assert.deepEqual(ids.map((r) => [r.appId, r.externalId]), [[a.id, "ext-1"], [
          b.id,
          "ext-1",
        ]]);
      } finally {
        await db.close();
      }
    },
  });
}
