import assert from "node:assert/strict";
import { backends } from "../../helpers/db.ts";
import { createTestApp, launchOk } from "../../helpers/launch.ts";
import { launchPayload as payload } from "../../helpers/payload.ts";
import { startTestService } from "../../helpers/service.ts";
import { SessionSchema } from "../../../server/api/schemas.ts";

for (const backend of backends) {
  Deno.test({
    name: `REST API v1 resources [${backend.name}]`,
    sanitizeOps: false,
    sanitizeResources: false,
    async fn(t) {
      const svc = await startTestService(backend);
      try {
        const admin = await svc.adminToken();
        const read = await svc.adminToken("sessions:read");
        const write = await svc.adminToken("sessions:read sessions:write");
        const app = await createTestApp(svc, admin);
        await svc.api("POST", "/api/v1/admin/custom-fields", admin, { name: "priority" });
        await svc.api("POST", "/api/v1/admin/custom-fields", admin, { name: "tier" });
        const cat = await (await svc.api("POST", "/api/v1/admin/path-categories", admin, {
          name: "Printers",
        })).json();
        const path = await (await svc.api("POST", "/api/v1/admin/paths", admin, {
          title: "Printer offline",
          categoryUid: cat.uid,
          published: true,
        })).json();
        const first = await launchOk(
          svc,
          app,
          payload({
            referenceId: "R-1",
            contactMobile: "+1 (555) 111-2222",
            customFields: { priority: "high" },
            deviceComputer: { name: "PC", serial: "S1" },
            user: { teams: [{ teamId: "T1", teamName: "Tier 1" }] },
          }),
        );
        await svc.db.sql`
          insert into path_runs (session_id, path_uid, agent_id)
          values (${first.sessionId}, ${path.uid}, ${first.agentId})`;
        const get = (p: string, token = read, headers: Record<string, string> = {}) =>
          svc.request(p, { headers: { Authorization: `Bearer ${token}`, ...headers } });

        await t.step("GET /sessions/:id answers the whole session", async () => {
          const res = await get(`/api/v1/sessions/${first.sessionId}`);
          assert.equal(res.status, 200);
          assert.equal(res.headers.get("Cache-Control"), "no-store");
          const s = await res.json();
          assert.equal(s.id, first.sessionId);
          assert.equal(s.status, "open");
          assert.equal(s.externalReference, "CASE00017");
          assert.equal(s.referenceId, "R-1");
          assert.equal(s.target, "standard");
          assert.deepEqual(s.assignee, {
            id: first.agentId,
            externalId: "agent42",
            email: "ada@example.com",
            firstName: "Ada",
            lastName: "Lovelace",
          });
          assert.deepEqual(s.customer, {
            id: first.customerId,
            externalId: "C0099",
            email: "grace@example.org",
            firstName: "Grace",
            lastName: "Hopper",
            phone1: "5559876543",
            phone2: "15551112222",
            otherPhone: null,
          });
          assert.deepEqual(s.customFields, { priority: "high" });
          assert.equal(s.devices.length, 1);
          assert.equal(s.devices[0].kind, "computer");
          assert.deepEqual(s.devices[0].properties, { name: "PC", serial: "S1" });
          assert.equal(s.pathRuns.length, 1);
          assert.equal(s.pathRuns[0].pathUid, path.uid);
          assert.equal(s.pathRuns[0].title, "Printer offline");
          assert.equal(s.pathRuns[0].agentId, first.agentId);
          assert.match(s.pathRuns[0].ranAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
          assert.match(s.createdAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
        });

        await t.step("GET /sessions/:id: 404 unknown, 400 non-numeric", async () => {
          const missing = await get("/api/v1/sessions/999999");
          assert.equal(missing.status, 404);
          assert.deepEqual(await missing.json(), {
            code: "session_not_found",
            message: "Session 999999 not found",
            requestId: missing.headers.get("X-Request-Id"),
          });
          const bad = await get("/api/v1/sessions/abc");
          assert.equal(bad.status, 400);
          assert.deepEqual((await bad.json()).errors, [{
            path: "id",
            code: "invalid_format",
            message: "expected a numeric id",
          }]);
        });

        await t.step("ETag: If-None-Match answers 304 until the session changes", async () => {
          const url = `/api/v1/sessions/${first.sessionId}`;
          const one = await get(url);
          const tag = one.headers.get("ETag")!;
          await one.body?.cancel();
          assert.match(tag, /^"[0-9a-f]{16}"$/);
          const same = await get(url, read, { "If-None-Match": tag });
          assert.equal(same.status, 304);
          assert.equal(same.headers.get("ETag"), tag);
          assert.equal(await same.text(), "");
          const weak = await get(url, read, { "If-None-Match": `"x", W/${tag}` });
          assert.equal(weak.status, 304);
          await weak.body?.cancel();
          const patched = await svc.api("PATCH", url, write, { customFields: { tier: 2 } });
          assert.equal(patched.status, 200);
          await patched.body?.cancel();
          const changed = await get(url, read, { "If-None-Match": tag });
          assert.equal(changed.status, 200);
          assert.notEqual(changed.headers.get("ETag"), tag);
          await changed.body?.cancel();
        });

        await t.step("PATCH changes status, assignee and custom fields", async () => {
          const bob = await launchOk(
            svc,
            app,
            payload({}, { id: "bob1", email: "bob@example.com", first_name: "Bob" }),
          );
          const url = `/api/v1/sessions/${first.sessionId}`;
          const res = await svc.api("PATCH", url, write, {
            status: "closed",
            assigneeId: bob.agentId,
            customFields: { priority: "low", tier: null },
          });
          assert.equal(res.status, 200);
          const s = await res.json();
          assert.equal(s.status, "closed");
          assert.equal(s.assignee.id, bob.agentId);
          assert.deepEqual(s.customFields, { priority: "low" });
          assert.ok(s.updatedAt > s.createdAt);
          const seen = await (await get(url)).json();
          assert.equal(seen.status, "closed", "the change is visible to readers");
          const unassigned = await (await svc.api("PATCH", url, write, { assigneeId: null }))
            .json();
          assert.equal(unassigned.assignee, null);
          const reopened = await (await svc.api("PATCH", url, write, {
            status: "open",
            assigneeId: first.agentId,
          })).json();
          assert.equal(reopened.status, "open");
        });

        await t.step("PATCH refusals name the field and write nothing", async () => {
          const url = `/api/v1/sessions/${first.sessionId}`;
          const before = await (await get(url)).json();
          const bad = await svc.api("PATCH", url, write, {
            status: "closed",
            assigneeId: 999999,
            customFields: { color: "red" },
          });
          assert.equal(bad.status, 400);
          assert.deepEqual((await bad.json()).errors, [
            {
              path: "customFields.color",
              code: "invalid",
              message: "not configured in the custom-fields setup",
            },
            {
              path: "assigneeId",
              code: "invalid_assignee",
              message: "not an enabled agent of this session's organization; " +
                "GET /api/v1/agents lists the agents you can assign",
            },
          ]);
          assert.deepEqual(await (await get(url)).json(), before);
          const [adminUser] = await svc.db.sql`
            insert into users (role, email) values ('admin', 'root@example.com') returning id`;
          const toAdmin = await svc.api("PATCH", url, write, { assigneeId: adminUser.id });
          assert.equal(toAdmin.status, 400);
          // An administrator's id gets the same answer as any id that is no assignable agent.
          assert.equal((await toAdmin.json()).code, "invalid_assignee");
          const shape = await svc.api("PATCH", url, write, { status: "pending", extra: 1 });
          assert.equal(shape.status, 400);
          assert.deepEqual(
            (await shape.json()).errors.map((e: { path: string }) => e.path).sort(),
            ["extra", "status"],
          );
          const empty = await svc.api("PATCH", url, write, {});
          assert.equal(empty.status, 400);
          await empty.body?.cancel();
          const missing = await svc.api("PATCH", "/api/v1/sessions/999999", write, {
            status: "closed",
          });
          assert.equal(missing.status, 404);
          await missing.body?.cancel();
          const text = await svc.request(url, {
            method: "PATCH",
            headers: { Authorization: `Bearer ${write}`, "Content-Type": "text/plain" },
            body: "status=closed",
          });
          assert.equal(text.status, 415);
          await text.body?.cancel();
          const malformed = await svc.request(url, {
            method: "PATCH",
            headers: { Authorization: `Bearer ${write}`, "Content-Type": "application/json" },
            body: "{",
          });
          assert.equal(malformed.status, 400);
          await malformed.body?.cancel();
        });

        await t.step("scopes: 401 without or with a bad token, 403 without the scope", async () => {
          const none = await svc.request(`/api/v1/sessions/${first.sessionId}`);
          assert.equal(none.status, 401);
          assert.equal(none.headers.get("WWW-Authenticate"), 'Bearer realm="api"');
          await none.body?.cancel();
          const bogus = await get(`/api/v1/sessions/${first.sessionId}`, "bogus-token");
          assert.equal(bogus.status, 401);
          assert.match(bogus.headers.get("WWW-Authenticate")!, /error="invalid_token"/);
          await bogus.body?.cancel();
          const patch = await svc.api("PATCH", `/api/v1/sessions/${first.sessionId}`, read, {
            status: "closed",
          });
          assert.equal(patch.status, 403);
          assert.match(
            patch.headers.get("WWW-Authenticate")!,
            /error="insufficient_scope", scope="sessions:write"/,
          );
          await patch.body?.cancel();
          const log = await get("/api/v1/launches", read);
          assert.equal(log.status, 403);
          await log.body?.cancel();
          const writeOnly = await svc.adminToken("sessions:write");
          const cust = await get(`/api/v1/customers/${first.customerId}`, writeOnly);
          assert.equal(cust.status, 403);
          await cust.body?.cancel();
        });

        await t.step("GET /sessions filters", async () => {
          const other = await launchOk(
            svc,
            app,
            payload({
              referenceNumber: "CASE9",
              referenceId: "R-9",
              contactId: "C7",
              contactEmail: "c7@example.org",
            }),
          );
          await svc.api("PATCH", `/api/v1/sessions/${other.sessionId}`, write, {
            status: "closed",
          });
          const ids = async (query: string) => {
            const res = await get(`/api/v1/sessions?${query}`);
            assert.equal(res.status, 200, query);
            return (await res.json()).items.map((s: { id: number }) => s.id);
          };
          assert.deepEqual(await ids("status=closed"), [other.sessionId]);
          assert.ok(!(await ids("status=open")).includes(other.sessionId));
          assert.deepEqual(await ids("externalReference=CASE9"), [other.sessionId]);
          assert.deepEqual(await ids("referenceId=R-9"), [other.sessionId]);
          assert.deepEqual(await ids("customerExternalId=C7"), [other.sessionId]);
          assert.deepEqual(await ids(`assigneeId=${first.agentId}&referenceId=R-1`), [
            first.sessionId,
          ]);
          const future = new Date(Date.now() + 60_000).toISOString();
          assert.deepEqual(await ids(`updatedSince=${future}`), []);
          const past = new Date(Date.now() - 60_000).toISOString();
          assert.ok((await ids(`updatedSince=${past}`)).includes(other.sessionId));
          const bad = await get(
            "/api/v1/sessions?status=x&updatedSince=yesterday&limit=0&assigneeId=a",
          );
          assert.equal(bad.status, 400);
          assert.deepEqual(
            (await bad.json()).errors.map((e: { path: string }) => e.path).sort(),
            ["assigneeId", "limit", "status", "updatedSince"],
          );
          // Year 0 parses in JavaScript, not in PostgreSQL: a 400 naming the field, not a 500.
          for (
            const [path, field] of [
              ["/api/v1/sessions?updatedSince=0000-01-01T00:00:00Z", "updatedSince"],
              ["/api/v1/sessions?updatedSince=0001-01-01T00:30:00%2B01:00", "updatedSince"],
              ["/api/v1/launches?since=0000-06-01T00:00:00Z", "since"],
            ]
          ) {
            const res = await get(path, admin);
            assert.equal(res.status, 400, path);
            const [error] = (await res.json()).errors;
            assert.equal(error.path, field);
            assert.match(error.message, /year 0001 to 9999/);
          }
          assert.ok(Array.isArray(await ids("updatedSince=0001-01-01T00:00:00Z")));
          // A parameter given twice is named as such, not as a value of the wrong type.
          const twice = await get("/api/v1/sessions?limit=1&limit=2&status=open&status=closed");
          assert.equal(twice.status, 400);
          assert.deepEqual(
            (await twice.json()).errors.map((e: { path: string; message: string }) => [
              e.path,
              e.message,
            ]).sort(),
            [
              ["limit", "given 2 times: send limit once"],
              ["status", "given 2 times: send status once"],
            ],
          );
          const cursor = await get("/api/v1/sessions?cursor=not-a-cursor");
          assert.equal(cursor.status, 400);
          assert.equal((await cursor.json()).errors[0].path, "cursor");
          const big = await get("/api/v1/sessions?limit=201");
          assert.equal(big.status, 400);
          await big.body?.cancel();
        });

        await t.step("pagination: pages stay exact while sessions are inserted", async () => {
          await svc.db.sql`delete from sessions where external_reference like 'PAGE%'`;
          for (let i = 0; i < 23; i++) {
            await launchOk(svc, app, payload({ referenceNumber: `PAGE${i}`, referenceId: "PG" }));
          }
          const expected = (await svc.db.sql`
            select id from sessions where reference_id = 'PG' order by id desc`).map((r) => r.id);
          const seen: number[] = [];
          let cursor: string | null = null;
          let pages = 0;
          do {
            const query: string = `referenceId=PG&limit=10${cursor ? `&cursor=${cursor}` : ""}`;
            const body = await (await get(`/api/v1/sessions?${query}`)).json();
            seen.push(...body.items.map((s: { id: number }) => s.id));
            cursor = body.nextCursor;
            pages++;
            // Concurrent writers: new sessions arrive between pages.
            await Promise.all(
              [0, 1].map((j) =>
                launchOk(
                  svc,
                  app,
                  payload({ referenceNumber: `PAGEX${pages}${j}`, referenceId: "PG" }),
                )
              ),
            );
          } while (cursor);
          assert.equal(pages, 3);
          assert.deepEqual(seen, expected, "every session once, newest first, none skipped");
        });

        await t.step("list items are the sessions as GET /sessions/:id shows them", async () => {
          const fields = Object.keys(SessionSchema.shape).sort();
          const res = await get("/api/v1/sessions?referenceId=PG&limit=5");
          assert.equal(res.headers.get("Content-Type"), "application/json");
          const body = await res.json();
          assert.equal(body.items.length, 5);
          for (const item of body.items) {
            assert.deepEqual(Object.keys(item).sort(), fields, "the Session schema's fields only");
            SessionSchema.parse(item);
            assert.deepEqual(item, await (await get(`/api/v1/sessions/${item.id}`)).json());
          }
          // A page that holds the last matches exactly has no next cursor; an empty one neither.
          const [{ n }] = await svc.db.sql`
            select count(*)::int as n from sessions where reference_id = 'PG'`;
          const all = await (await get(`/api/v1/sessions?referenceId=PG&limit=${n}`)).json();
          assert.deepEqual([all.items.length, all.nextCursor], [n, null]);
          const none = await (await get("/api/v1/sessions?referenceId=none")).json();
          assert.deepEqual(none, { items: [], nextCursor: null });
        });

        await t.step("list pages carry non-ASCII text byte for byte", async () => {
          // The page is PostgreSQL's UTF-8 passed through as bytes: 2-, 3- and 4-byte characters.
          const name = { contactFirstName: "Zoë", contactLastName: "東京-𝒜da" };
          const customFields = { priority: "🎧 high" };
          await launchOk(
            svc,
            app,
            payload({ referenceNumber: "UTF1", referenceId: "UTF", ...name, customFields }),
          );
          const res = await get("/api/v1/sessions?referenceId=UTF");
          const page = await res.json();
          assert.equal(page.items.length, 1);
          assert.equal(page.items[0].customer.firstName, "Zoë");
          assert.equal(page.items[0].customer.lastName, "東京-𝒜da");
          assert.deepEqual(page.items[0].customFields, customFields);
          const one = await get(`/api/v1/sessions/${page.items[0].id}`);
          assert.deepEqual(page.items[0], await one.json());
        });

        await t.step("customers and agents: by id, by e-mail, by external id", async () => {
          const c = await get(`/api/v1/customers/${first.customerId}`);
          assert.equal(c.status, 200);
          assert.ok(c.headers.get("ETag"));
          const customer = await c.json();
          assert.equal(customer.email, "grace@example.org");
          assert.deepEqual(Object.keys(customer).sort(), [
            "createdAt",
            "email",
            "externalId",
            "firstName",
            "id",
            "lastName",
            "otherPhone",
            "phone1",
            "phone2",
            "updatedAt",
          ]);
          const byEmail = await (await get("/api/v1/customers?email=GRACE@example.org")).json();
          assert.deepEqual(byEmail.items.map((x: { id: number }) => x.id), [first.customerId]);
          assert.equal(byEmail.nextCursor, null);
          const byExt = await (await get("/api/v1/customers?externalId=C7")).json();
          assert.equal(byExt.items.length, 1);
          assert.equal((await get("/api/v1/customers/999999")).status, 404);

          const a = await (await get(`/api/v1/agents/${first.agentId}`)).json();
          assert.equal(a.externalId, "agent42");
          assert.deepEqual(a.teams, [{ teamId: "T1", teamName: "Tier 1" }]);
          assert.equal("passwordHash" in a, false);
          const byAgentEmail = await (await get("/api/v1/agents?email=ada@example.com")).json();
          assert.deepEqual(byAgentEmail.items.map((x: { id: number }) => x.id), [first.agentId]);
          const byAgentExt = await (await get("/api/v1/agents?externalId=bob1")).json();
          assert.equal(byAgentExt.items[0].firstName, "Bob");
          const all = await (await get("/api/v1/agents?limit=1")).json();
          assert.equal(all.items.length, 1);
          assert.ok(all.nextCursor);
          const [adminUser] = await svc.db.sql`select id from users where role = 'admin'`;
          const notAgent = await get(`/api/v1/agents/${adminUser.id}`);
          assert.equal(notAgent.status, 404, "administrators are not agents");
          await notAgent.body?.cancel();
        });

        await t.step("launches: the audit log, filtered, admin scope", async () => {
          await svc.request("/portal/api/auth/app/crm", {
            method: "POST",
            headers: { Accept: "application/json" },
            body: new URLSearchParams({ signed_request: "AAAA.eyJ9" }),
          }).then((r) => r.body?.cancel());
          const all = await (await get("/api/v1/launches?limit=5", admin)).json();
          assert.equal(all.items.length, 5);
          assert.ok(all.nextCursor);
          const failed = await (await get("/api/v1/launches?outcome=invalid_signature", admin))
            .json();
          assert.equal(failed.items.length, 1);
          assert.equal(failed.items[0].app, "crm");
          assert.equal(failed.items[0].payload, null);
          const ok = await (await get(`/api/v1/launches?app=CRM&outcome=ok&limit=200`, admin))
            .json();
          assert.ok(ok.items.every((l: { outcome: string }) => l.outcome === "ok"));
          const firstLaunch = ok.items.find((l: { id: number }) => l.id === first.launchId);
          assert.equal(firstLaunch.sessionId, first.sessionId);
          assert.equal(firstLaunch.payload.context.user.id, "agent42");
          assert.equal(firstLaunch.view.target, "standard");
          const future = new Date(Date.now() + 60_000).toISOString();
          assert.deepEqual(
            (await (await get(`/api/v1/launches?since=${future}`, admin)).json())
              .items,
            [],
          );
          const one = await get(`/api/v1/launches/${first.launchId}`, admin);
          assert.equal((await one.json()).id, first.launchId);
        });
      } finally {
        await svc.close();
      }
    },
  });
}
