import assert from "node:assert/strict";
import { backends } from "../../helpers/db.ts";
import { startTestService, type TestService } from "../../helpers/service.ts";
import { forgetApps } from "../../../server/launch/app_cache.ts";
import { signPayload } from "../../../server/launch/signed_request.ts";
import { type Json, launchPayload } from "../../helpers/payload.ts";

const payload = launchPayload;

async function counts(svc: TestService) {
  const [row] = await svc.db.sql`select
    (select count(*) from users where role = 'agent') as agents,
    (select count(*) from customers) as customers,
    (select count(*) from sessions) as sessions,
    (select count(*) from devices) as devices,
    (select count(*) from session_custom_fields) as fields,
    (select count(*) from portal_logins) as logins,
    (select count(*) from teams) as teams`;
  return row;
}

async function lastSessionId(svc: TestService): Promise<number> {
  const [row] = await svc.db.sql`select max(id) as id from sessions`;
  return row.id;
}

for (const backend of backends) {
  Deno.test({
    name: `launch endpoint end to end [${backend.name}]`,
    sanitizeOps: false,
    sanitizeResources: false,
    async fn(t) {
      const queries: string[] = [];
      const svc = await startTestService(backend, {}, { onQuery: (q) => queries.push(q) });
      try {
        const admin = await svc.adminToken();
        const app = await (await svc.api("POST", "/api/v1/admin/apps", admin, {
          appName: "crm",
          name: "CRM",
          authType: "signed_request",
          frameAncestors: ["http://host.test"],
        })).json();
        await svc.api("POST", "/api/v1/admin/custom-fields", admin, { name: "priority" });
        const cat = await (await svc.api("POST", "/api/v1/admin/path-categories", admin, {
          name: "Printers",
        })).json();
        const path = await (await svc.api("POST", "/api/v1/admin/paths", admin, {
          title: "Offline",
          categoryUid: cat.uid,
          tags: ["printer"],
          published: true,
        })).json();

        const launch = async (
          p: Json,
          opts: { json?: boolean; key?: string; raw?: string; path?: string } = {},
        ) => {
          const signed = opts.raw ?? await signPayload(JSON.stringify(p), opts.key ?? app.apiKey);
          const res = await svc.request(opts.path ?? "/portal/api/auth/app/crm", {
            method: "POST",
            headers: opts.json ? { Accept: "application/json" } : { Accept: "text/html" },
            body: new URLSearchParams({ signed_request: signed }),
          });
          return res;
        };
        const launchJson = async (p: Json) => {
          const res = await launch(p, { json: true });
          return { status: res.status, body: await res.json(), res };
        };

        await t.step("a new session: 303 to the session screen with the login cookie", async () => {
          const res = await launch(
            payload({
              deviceComputer: { name: "PC", serial: "S1" },
              customFields: { priority: "high" },
            }),
          );
          assert.equal(res.status, 303);
          const location = res.headers.get("Location")!;
          assert.match(location, /^http:\/\/portal\.test\/portal\/sessions\/\d+\?launch=\d+$/);
          const cookie = res.headers.get("Set-Cookie")!;
          // The same attributes in any order: portal_login=<43 chars>; Path=/portal; Max-Age=28800;
          // HttpOnly; Secure; SameSite=None; Partitioned.
          const [pair, ...attributes] = cookie.split("; ");
          assert.match(pair, /^portal_login=[A-Za-z0-9_-]{43}$/);
          assert.deepEqual(attributes.sort(), [
            "HttpOnly",
            "Max-Age=28800",
            "Partitioned",
            "Path=/portal",
            "SameSite=None",
            "Secure",
          ]);
          const screen = await svc.request(new URL(location).pathname + new URL(location).search, {
            headers: { Cookie: cookie.split(";")[0] },
          });
          assert.equal(screen.status, 200);
          assert.equal(
            screen.headers.get("Content-Security-Policy"),
            "frame-ancestors 'self' http://host.test",
            "the launch's app may frame the session screen",
          );
          assert.match(await screen.text(), /Grace Hopper/);
          const plain = await svc.request(new URL(location).pathname, {
            headers: { Cookie: cookie.split(";")[0] },
          });
          assert.equal(plain.headers.get("Content-Security-Policy"), "frame-ancestors 'self'");
          await plain.body?.cancel();
          const noCookie = await svc.request(new URL(location).pathname);
          assert.equal(noCookie.status, 303, "no cookie: sign in first");
          assert.equal(
            noCookie.headers.get("Location"),
            `/portal/login?next=${encodeURIComponent(new URL(location).pathname)}`,
          );
          const c = await counts(svc);
          assert.deepEqual([c.agents, c.customers, c.sessions, c.devices, c.fields, c.logins], [
            1,
            1,
            1,
            1,
            1,
            1,
          ]);
          const [s] = await svc.db
            .sql`select s.*, u.external_id from sessions s join users u on u.id = s.assignee_id`;
          assert.equal(s.externalReference, "CASE00017");
          assert.equal(s.externalId, "agent42");
          const [l] = await svc.db.sql`select * from launches order by id desc limit 1`;
          assert.equal(l.outcome, "ok");
          assert.equal(l.view.target, "standard");
          assert.equal(l.payload.context.user.id, "agent42");
        });

        await t.step("JSON callers get ids and the redirect URL", async () => {
          const { status, body } = await launchJson(payload());
          assert.equal(status, 200);
          assert.deepEqual(Object.keys(body).sort(), [
            "agentId",
            "customerId",
            "launchId",
            "redirectUrl",
            "sessionId",
          ]);
          const c = await counts(svc);
          assert.equal(c.agents, 1, "the agent is found by external id");
          assert.equal(c.customers, 1, "the customer is found by e-mail");
          assert.equal(c.sessions, 2);
        });

        await t.step(
          "one launch is exactly 6 round trips (app lookup, BEGIN, 3 statements, COMMIT); 5 with the app cached",
          async () => {
            forgetApps(svc.deps);
            for (const existing of [false, true]) {
              const p = existing
                ? payload({ sessionId: String(await lastSessionId(svc)) })
                : payload({ deviceComputer: { serial: "S9" }, customFields: { priority: "low" } });
              const before = queries.length;
              const { status } = await launchJson(p);
              assert.equal(status, 200);
              const sent = queries.slice(before).map((q) => {
                const text = q.replace(/\s+/g, " ").trim().toLowerCase();
                return text === "begin" || text === "commit"
                  ? text
                  : /^with s as .* from field_settings/.test(text)
                  ? "lookups"
                  : /update users .* insert into users .* update customers .* insert into customers/
                      .test(text)
                  ? "agent and customer"
                  : /insert into sessions .* update sessions .* insert into launches/.test(text)
                  ? "session and the rest"
                  : /from apps/.test(text)
                  ? "app"
                  : text.slice(0, 60);
              });
              assert.deepEqual(sent, [
                ...(existing ? [] : ["app"]),
                "begin",
                "lookups",
                "agent and customer",
                "session and the rest",
                "commit",
              ], existing ? "existing session" : "new session");
            }
          },
        );

        await t.step(
          "agent found by e-mail when the external id is new; profile updated",
          async () => {
            await launchJson(payload({}, { id: "newid7", first_name: "Augusta" }));
            const rows = await svc.db
              .sql`select external_id, first_name from users where role = 'agent'`;
            assert.deepEqual(rows.map((r) => [r.externalId, r.firstName]), [["newid7", "Augusta"]]);
          },
        );

        await t.step("customer found by contactId when the e-mail is new", async () => {
          await launchJson(payload({ contactEmail: "grace.new@example.org" }));
          const rows = await svc.db.sql`select email from customers`;
          assert.deepEqual(rows.map((r) => r.email), ["grace.new@example.org"]);
        });

        await t.step(
          "existing session: assign only an open one; closed keeps status and assignee",
          async () => {
            const first = await launchJson(payload());
            const sid = first.body.sessionId;
            const other = await launchJson(
              payload({ sessionId: sid, assign: 1 }, {
                id: "bob1",
                email: "bob@example.com",
                first_name: "Bob",
              }),
            );
            assert.equal(other.body.sessionId, sid);
            let [s] = await svc.db.sql`select assignee_id, status from sessions where id = ${sid}`;
            assert.equal(s.assigneeId, other.body.agentId);
            await svc.db.sql`update sessions set status = 'closed' where id = ${sid}`;
            await launchJson(payload({ sessionId: String(sid), assign: "true" }));
            [s] = await svc.db.sql`select assignee_id, status from sessions where id = ${sid}`;
            assert.equal(s.status, "closed");
            assert.equal(s.assigneeId, other.body.agentId);
            const noAssign = await launchJson(payload({ sessionId: sid }));
            assert.equal(noAssign.status, 200);
          },
        );

        await t.step("unknown sessionId: 404 and nothing written, not even the agent", async () => {
          const before = await counts(svc);
          const { status, body } = await launchJson(
            payload({ sessionId: 999999 }, { id: "ghost1", email: "ghost@example.com" }),
          );
          assert.equal(status, 404);
          assert.deepEqual(body, {
            code: "session_not_found",
            message: "Session 999999 not found",
          });
          assert.deepEqual(await counts(svc), before);
          const [l] = await svc.db.sql`select outcome from launches order by id desc limit 1`;
          assert.equal(l.outcome, "session_not_found");
        });

        await t.step("a failure late in the flow rolls everything back", async () => {
          // Another customer owns contactId X1; a new e-mail with X1 conflicts at the customer step,
          // after the agent step ran.
          await launchJson(payload({ contactId: "X1", contactEmail: "x1@example.org" }));
          await launchJson(payload({ contactId: "X2", contactEmail: "x2@example.org" }));
          const before = await counts(svc);
          const { status } = await launchJson(
            payload({ contactId: "X1", contactEmail: "x2@example.org" }, {
              id: "late1",
              email: "late@example.com",
            }),
          );
          assert.equal(status, 409);
          assert.deepEqual(await counts(svc), before);
        });

        await t.step("custom fields, field settings and paths are checked", async () => {
          const cf = await launchJson(payload({ customFields: { color: "red", priority: "low" } }));
          assert.equal(cf.status, 400);
          assert.match(cf.body.message, /not configured: color/);
          const bad = await launchJson(payload({
            paths: {
              search: [{ search_type: "category_uid", search_values: [crypto.randomUUID()] }, {
                search_type: "tag",
                search_values: ["nope"],
              }],
            },
          }));
          assert.equal(bad.status, 400);
          assert.equal(bad.body.errors.length, 2);
          const ok = await launchJson(payload({
            paths: {
              search: [{ search_type: "category_uid", search_values: [cat.uid] }, {
                search_type: "path_uid",
                search_values: [path.uid],
              }, { search_type: "tag", search_values: ["Printer"] }],
            },
          }));
          assert.equal(ok.status, 200);
          await svc.api("PATCH", `/api/v1/admin/paths/${path.uid}`, admin, { published: false });
          const stale = await launchJson(
            payload({
              paths: { search: [{ search_type: "path_uid", search_values: [path.uid] }] },
            }),
          );
          assert.equal(stale.status, 400);
          assert.match(stale.body.errors[0].message, /unpublished/);
          await svc.api("PUT", "/api/v1/admin/field-settings", admin, {
            session: { externalSessionId: false },
            consumer: { externalCustomerId: true },
          });
          const off = await launchJson(payload());
          assert.equal(off.status, 409);
          assert.match(off.body.message, /Session Data/);
          await svc.api("PUT", "/api/v1/admin/field-settings", admin, {
            session: { externalSessionId: true },
            consumer: { externalCustomerId: true },
          });
        });

        await t.step(
          "spec §7: GET is 405 'Cannot GET <path>', bad user id, bad signature",
          async () => {
            const get = await svc.request("/portal/api/auth/app/crm?x=1");
            assert.equal(get.status, 405);
            assert.equal(get.headers.get("Allow"), "POST");
            assert.equal(await get.text(), "Cannot GET /portal/api/auth/app/crm");
            const put = await svc.request("/portal/api/auth/app/crm", { method: "PUT" });
            assert.equal(await put.text(), "Cannot PUT /portal/api/auth/app/crm");
            const user = await launchJson(payload({}, { id: "not valid!" }));
            assert.equal(user.status, 400);
            assert.deepEqual(user.body, { message: "Error evaluating User" });
            const sig = await launch(payload(), { json: true, key: "wrong-key-0000000000" });
            assert.equal(sig.status, 401);
            assert.deepEqual(await sig.json(), {
              code: "invalid_signature",
              message: "Invalid signature",
            });
            const unknown = await launch(payload(), {
              json: true,
              path: "/portal/api/auth/app/nope",
            });
            assert.equal(unknown.status, 404);
            assert.deepEqual(await unknown.json(), {
              code: "app_not_found",
              message: "Unknown application: nope",
            });
          },
        );

        await t.step(
          "browsers get an error page that posts to the allowed origin only",
          async () => {
            const res = await launch(payload({}, { email: "bad" }));
            assert.equal(res.status, 400);
            assert.equal(
              res.headers.get("Content-Security-Policy"),
              "frame-ancestors 'self' http://host.test",
            );
            const html = await res.text();
            assert.match(html, /role="alert"/);
            assert.match(html, /"type":"portal-launcher:error"/);
            assert.match(html, /\["http:\/\/host\.test"\]/);
            assert.match(html, /context\.user\.email/);
          },
        );

        await t.step("multipart/form-data bodies launch like url-encoded ones", async () => {
          const form = new FormData();
          form.set("signed_request", await signPayload(JSON.stringify(payload()), app.apiKey));
          const res = await svc.request("/portal/api/auth/app/crm", {
            method: "POST",
            headers: { Accept: "application/json" },
            body: form,
          });
          assert.equal(res.status, 200);
          assert.match((await res.json()).redirectUrl, /\/portal\/sessions\/\d+\?launch=\d+$/);
          const missing = new FormData();
          missing.set("other", "x");
          const none = await svc.request("/portal/api/auth/app/crm", {
            method: "POST",
            headers: { Accept: "application/json" },
            body: missing,
          });
          assert.equal(none.status, 400);
          assert.match((await none.json()).message, /signed_request/);
        });

        await t.step("an administrator's e-mail or id cannot be launched as an agent", async () => {
          const [boss] = await svc.db.sql`
            insert into users (role, external_id, email, first_name, last_name)
            values ('admin', 'boss1', 'boss@example.com', 'Boss', 'Person') returning id`;
          const before = await counts(svc);
          for (const user of [{ email: "Boss@example.com" }, { id: "boss1" }]) {
            const { status, body } = await launchJson(payload({}, { id: "other5", ...user }));
            assert.equal(status, 403, JSON.stringify(body));
            assert.match(body.message, /administrator/);
          }
          const dry = await svc.request("/portal/api/auth/app/crm/validate", {
            method: "POST",
            body: new URLSearchParams({
              signed_request: await signPayload(
                JSON.stringify(payload({}, { email: "boss@example.com" })),
                app.apiKey,
              ),
            }),
          });
          assert.equal(dry.status, 403);
          await dry.body?.cancel();
          assert.deepEqual(await counts(svc), before);
          const [u] = await svc.db.sql`select role, first_name from users where id = ${boss.id}`;
          assert.deepEqual([u.role, u.firstName], ["admin", "Boss"]);
        });

        await t.step("a body over 64 KiB is 413; a JSON body is 415", async () => {
          const big = await svc.request("/portal/api/auth/app/crm", {
            method: "POST",
            headers: { Accept: "application/json" },
            body: new URLSearchParams({ signed_request: "x".repeat(70 * 1024) }),
          });
          assert.equal(big.status, 413);
          await big.body?.cancel();
          const json = await svc.request("/portal/api/auth/app/crm", {
            method: "POST",
            headers: { Accept: "application/json", "Content-Type": "application/json" },
            body: "{}",
          });
          assert.equal(json.status, 415);
          await json.body?.cancel();
        });

        await t.step(
          "dry run writes nothing and answers the plan, with CORS for allowed origins",
          async () => {
            const before = await counts(svc);
            const [{ count: launchesBefore }] = await svc.db.sql`select count(*) from launches`;
            const res = await svc.request("/portal/api/auth/app/crm/validate", {
              method: "POST",
              headers: { Origin: "http://host.test" },
              body: new URLSearchParams({
                signed_request: await signPayload(
                  JSON.stringify(payload({}, { id: "fresh9", email: "fresh@example.com" })),
                  app.apiKey,
                ),
              }),
            });
            assert.equal(res.status, 200);
            assert.equal(res.headers.get("Access-Control-Allow-Origin"), "http://host.test");
            assert.deepEqual(await res.json(), {
              ok: true,
              plan: { agent: "create", customer: "update", session: "create", assign: true },
            });
            assert.deepEqual(await counts(svc), before);
            const [{ count: launchesAfter }] = await svc.db.sql`select count(*) from launches`;
            assert.equal(launchesAfter, launchesBefore);
            const denied = await svc.request("/portal/api/auth/app/crm/validate", {
              method: "POST",
              headers: { Origin: "http://evil.test" },
              body: new URLSearchParams({ signed_request: "x.y" }),
            });
            assert.equal(denied.status, 401);
            assert.equal(denied.headers.get("Access-Control-Allow-Origin"), null);
            await denied.body?.cancel();
          },
        );

        await t.step(
          "20 simultaneous launches for a new agent and customer make one of each",
          async () => {
            const p = payload({ contactId: "RACE1", contactEmail: "race@example.org" }, {
              id: "race1",
              email: "race@example.com",
            });
            const results = await Promise.all(Array.from({ length: 20 }, () => launchJson(p)));
            assert.deepEqual(results.map((r) => r.status), Array(20).fill(200));
            const [a] = await svc.db.sql`select count(*) from users where external_id = 'race1'`;
            const [c] = await svc.db
              .sql`select count(*) from customers where external_id = 'RACE1'`;
            assert.equal(a.count, 1);
            assert.equal(c.count, 1);
            assert.equal(new Set(results.map((r) => r.body.agentId)).size, 1);
          },
        );
      } finally {
        await svc.close();
      }
    },
  });
}
