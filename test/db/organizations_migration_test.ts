/** Migration 00019 creates organization `default` and puts existing apps, agents, teams in it. */
import assert from "node:assert/strict";
import { migrate, readMigrations } from "../../db/migrate.ts";
import { backends } from "../helpers/db.ts";

const opts = { sanitizeOps: false, sanitizeResources: false };

for (const backend of backends) {
  Deno.test({
    name: `migration 00019 puts existing apps, agents and teams in default [${backend.name}]`,
    ...opts,
    async fn() {
      const db = await backend.open();
      try {
        const sql = db.sql;
        const files = await readMigrations();
        await migrate(sql, files.filter((m) => m.name < "00019"));
        // Rows as the schema of that era holds them: no organization anywhere.
        const [app] = await sql`insert into apps (app_name, name, auth_type, api_key_sealed)
          values ('crm', 'CRM', 'signed_request', 'x') returning id`;
        const [agent] = await sql`insert into users (role, external_id, email)
          values ('agent', 'ext-1', 'agent@example.com') returning id`;
        const [team] = await sql`insert into teams (team_id, name)
          values ('support', 'Support') returning id`;
        await sql`insert into team_members (team_id, user_id) values (${team.id}, ${agent.id})`;

        const done = await migrate(sql);
        assert.ok(done.migrations.includes("00019_organizations.sql"), "00019 ran now");

        const organizations = await sql`select id, slug from organizations`;
        assert.deepEqual(organizations.map((o) => o.slug), ["default"], "default alone exists");
        const dflt = Number(organizations[0].id);
        const [a] = await sql`select organization_id from apps where id = ${app.id}`;
        const [u] = await sql`select organization_id from users where id = ${agent.id}`;
        const [t] = await sql`select organization_id from teams where id = ${team.id}`;
        assert.deepEqual(
          [a.organizationId, u.organizationId, t.organizationId].map(Number),
          [dflt, dflt, dflt],
          "the app, the agent and the team are in default",
        );
        const [{ members }] = await sql`select count(*)::int as members from team_members
          where team_id = ${team.id} and user_id = ${agent.id}`;
        assert.equal(members, 1, "the agent stays in its team");
      } finally {
        await db.close();
      }
    },
  });
}
