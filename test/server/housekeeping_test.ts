import assert from "node:assert/strict";
import { backends } from "../helpers/db.ts";
import { startTestService } from "../helpers/service.ts";
import { createTestApp } from "../helpers/launch.ts";
import { cleanUp } from "../../server/housekeeping.ts";

for (const backend of backends) {
  Deno.test(`housekeeping deletes expired nonces, logins and tokens, and nothing live [${backend.name}]`, async () => {
    const svc = await startTestService(backend);
    try {
      const sql = svc.db.sql;
      await svc.adminToken();
      const app = await createTestApp(svc, await svc.adminToken(), "hk");
      const [{ id: appId }] = await sql`select id from apps where app_name = ${app.appName}`;
      await sql`insert into launch_nonces (app_id, nonce, expires_at) values
        (${appId}, 'old-nonce-0000000001', now() - interval '1 second'),
        (${appId}, 'live-nonce-000000001', now() + interval '5 minutes')`;
      const [{ id: userId }] = await sql`insert into users (role, email, first_name, last_name)
        values ('agent', 'hk@example.com', 'H', 'K') returning id`;
      await sql`insert into logins (token_hash, user_id, expires_at) values
        ('old-login', ${userId}, now() - interval '1 second'),
        ('live-login', ${userId}, now() + interval '1 hour')`;
      await sql`update access_tokens set expires_at = now() - interval '2 days'`;
      await sql`insert into launches (app_name, outcome, payload, client_address, user_agent,
        created_at) values
        ('hk', 'ok', '{"a":1}', '10.0.0.1', 'UA', now() - interval '100 days'),
        ('hk', 'ok', '{"a":2}', '10.0.0.2', 'UA', now() - interval '40 days'),
        ('hk', 'ok', '{"a":3}', '10.0.0.3', 'UA', now() - interval '1 day')`;
      const deleted = await cleanUp(sql, { launchLogPayloadDays: 30, launchLogRetentionDays: 90 });
      assert.equal(deleted.nonces, 1);
      assert.equal(deleted.logins, 1);
      assert.ok(deleted.tokens >= 2, `tokens: ${deleted.tokens}`);
      const nonces = await sql`select nonce from launch_nonces`;
      assert.deepEqual(nonces.map((r) => r.nonce), ["live-nonce-000000001"]);
      const logins = await sql`select token_hash from logins`;
      assert.deepEqual(logins.map((r) => r.tokenHash), ["live-login"]);
      assert.equal(deleted.launches, 1, "the record older than 90 days");
      assert.equal(deleted.launchPersonalData, 2, "the records older than 30 days (one then goes)");
      const launches = await sql`select payload, client_address from launches
        where app_name = 'hk' order by created_at`;
      assert.deepEqual(launches.map((r) => [r.payload, r.clientAddress]), [
        [null, null],
        [{ a: 3 }, "10.0.0.3"],
      ]);
      assert.deepEqual(
        await cleanUp(sql, { launchLogPayloadDays: 30, launchLogRetentionDays: 90 }),
        {
          tokens: 0,
          nonces: 0,
          logins: 0,
          signInAttempts: 0,
          launchPersonalData: 0,
          launches: 0,
          callbackEvents: 0,
          passwordResets: 0,
          mail: 0,
          remote: 0,
        },
        "idempotent",
      );
    } finally {
      await svc.close();
    }
  });
}
