/**
 * Token requests that come together share one insert (server/batcher.ts): each still gets its own
 * token, checked on its own client, secret, app and scopes.
 */
import assert from "node:assert/strict";
import { backends } from "../../helpers/db.ts";
import { createTestApp } from "../../helpers/launch.ts";
import { ADMIN_CLIENT, startTestService } from "../../helpers/service.ts";
import { insertTokensForSecrets } from "../../../db/queries/access_tokens.ts";
import { sha256 } from "../../../server/crypto/hashing.ts";

const tokenRequest = (scope?: string) => ({
  method: "POST",
  body: new URLSearchParams({
    grant_type: "client_credentials",
    client_id: ADMIN_CLIENT.id,
    client_secret: ADMIN_CLIENT.secret,
    ...(scope ? { scope } : {}),
  }),
});

for (const backend of backends) {
  Deno.test({
    name: `token batches [${backend.name}]`,
    sanitizeOps: false,
    sanitizeResources: false,
    async fn(t) {
      const inserts: string[] = [];
      const svc = await startTestService(backend, {}, {
        onQuery: (q) => /insert into access_tokens/.test(q) && inserts.push(q),
      });
      try {
        await t.step("40 requests at once: fewer inserts, 40 distinct working tokens", async () => {
          await svc.adminToken(); // the client's salt is now known: the one-statement path
          inserts.length = 0;
          const [{ count: before }] = await svc.db.sql`select count(*)::int from access_tokens`;
          const answers = await Promise.all(
            Array.from({ length: 40 }, (_, i) =>
              svc.request(
                "/api/v1/oauth2/token",
                tokenRequest(i % 2 ? "sessions:read" : undefined),
              )),
          );
          const bodies = await Promise.all(answers.map((r) => r.json()));
          assert.deepEqual(answers.map((r) => r.status), Array(40).fill(200));
          const tokens = new Set(bodies.map((b) => b.access_token));
          assert.equal(tokens.size, 40);
          bodies.forEach((b, i) => {
            if (i % 2) assert.equal(b.scope, "sessions:read");
            else assert.match(b.scope, /\badmin\b/);
          });
          assert.ok(
            inserts.length < 40 && inserts.length >= 1,
            `${inserts.length} inserts for 40 tokens`,
          );
          const [{ count: after }] = await svc.db.sql`select count(*)::int from access_tokens`;
          assert.equal(after - before, 40);
          for (const [i, b] of bodies.entries()) {
            const res = await svc.api("GET", "/api/v1/sessions?limit=1", b.access_token);
            assert.equal(res.status, 200, `token ${i}`);
            await res.body?.cancel();
          }
        });

        await t.step("one insert answers each request on its own", async () => {
          const adminToken = await svc.adminToken();
          const app = await createTestApp(svc, adminToken, "off");
          await svc.api("PATCH", "/api/v1/admin/apps/off", adminToken, { enabled: false });
          const hashes = new Map<string, string>(
            (await svc.db.sql<{ clientId: string; secretHash: string }[]>`
              select client_id, secret_hash from api_clients`).map((
              r,
            ) => [r.clientId, r.secretHash]),
          );
          const expiresAt = new Date(Date.now() + 60_000);
          const request = (clientId: string, secretHash: string, scopes: string[] | null) => ({
            clientId,
            secretHash,
            scopes,
            tokenHash: sha256(crypto.randomUUID()),
            expiresAt,
          });
          const admin = hashes.get(ADMIN_CLIENT.id)!;
          const requests = [
            request(ADMIN_CLIENT.id, admin, null),
            request(ADMIN_CLIENT.id, "wrong-hash", null),
            request(ADMIN_CLIENT.id, admin, ["sessions:read", "admin"]),
            request(ADMIN_CLIENT.id, admin, ["no:such-scope"]),
            request("nobody", admin, null),
            request(app.clientId, hashes.get(app.clientId)!, null),
            request(ADMIN_CLIENT.id, admin, []),
          ];
          const answers = await insertTokensForSecrets(svc.db.sql, requests);
          assert.equal(answers.length, requests.length);
          assert.ok(answers[0]!.scopes.includes("admin"), "null: every scope the client has");
          assert.equal(answers[1], null, "wrong secret");
          assert.deepEqual(answers[2], { scopes: ["sessions:read", "admin"] });
          assert.equal(answers[3], null, "a scope the client may not use");
          assert.equal(answers[4], null, "unknown client");
          assert.equal(answers[5], null, "disabled app");
          assert.deepEqual(answers[6], { scopes: [] });
          const written = await svc.db.sql<{ tokenHash: string }[]>`
            select token_hash from access_tokens
            where token_hash in ${svc.db.sql(requests.map((r) => r.tokenHash))}`;
          assert.deepEqual(
            new Set(written.map((r) => r.tokenHash)),
            new Set([0, 2, 6].map((i) => requests[i].tokenHash)),
          );
        });
        // One connection in the embedded database: no other transaction can hold a row.
        if (backend.name !== "pglite") {
          await t.step("a client whose row another transaction holds waits alone", async () => {
            const adminToken = await svc.adminToken();
            const app = await createTestApp(svc, adminToken, "held");
            const [{ secretHash: heldHash }] = await svc.db.sql<{ secretHash: string }[]>`
              select secret_hash from api_clients where client_id = ${app.clientId}`;
            const [{ secretHash: adminHash }] = await svc.db.sql<{ secretHash: string }[]>`
              select secret_hash from api_clients where client_id = ${ADMIN_CLIENT.id}`;
            let release!: () => void;
            const held = new Promise<void>((r) => release = r);
            let locked!: () => void;
            const isLocked = new Promise<void>((r) => locked = r);
            // As deleting the app would: its client's row locked for update.
            const holder = svc.db.sql.begin(async (tx) => {
              await tx`select id from api_clients where client_id = ${app.clientId} for update`;
              locked();
              await held;
            });
            await isLocked;
            const expiresAt = new Date(Date.now() + 60_000);
            const started = performance.now();
            const answers = await insertTokensForSecrets(svc.db.sql, [
              {
                clientId: app.clientId,
                secretHash: heldHash,
                scopes: null,
                tokenHash: "h1",
                expiresAt,
              },
              {
                clientId: ADMIN_CLIENT.id,
                secretHash: adminHash,
                scopes: null,
                tokenHash: "h2",
                expiresAt,
              },
            ]);
            const ms = performance.now() - started;
            release();
            await holder;
            assert.ok(ms < 1_000, `answered after ${ms} ms`);
            assert.equal(answers[0], null, "the held client: the step-by-step path, alone");
            assert.ok(answers[1]?.scopes.includes("admin"), "the other client: its token");
          });
        }
      } finally {
        await svc.close();
      }
    },
  });
}
