import assert from "node:assert/strict";
import { backends } from "../../helpers/db.ts";
import { forgetApps } from "../../../server/launch/app_cache.ts";
import { signLaunch } from "../../helpers/launch.ts";
import { launchPayload } from "../../helpers/payload.ts";
import { uniqueId } from "../../helpers/shared.ts";
import { delta, fixtureTest, freshPayload, launchFixtures } from "./fixture.ts";

const fixtures = launchFixtures(backends);

/** The frame-ancestors directive of a page's Content-Security-Policy. */
function framing(res: Response): string | undefined {
  return res.headers.get("Content-Security-Policy")?.split("; ")
    .find((d) => d.startsWith("frame-ancestors"));
}

for (const backend of backends) {
  const test = fixtureTest(fixtures, backend, "launch ");

  test("of a new session: 303 to the session screen with the login cookie", async (f) => {
    const before = await f.counts();
    const p = freshPayload({
      deviceComputer: { name: "PC", serial: "S1" },
      customFields: { priority: "high" },
    });
    const res = await f.launch(p);
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
    const url = new URL(location);
    const screen = await f.svc.request(url.pathname + url.search, {
      headers: { Cookie: pair },
    });
    assert.equal(screen.status, 200);
    assert.equal(
      framing(screen),
      "frame-ancestors 'self' https://host.test",
      "the launch's app may frame the session screen",
    );
    assert.match(screen.headers.get("Content-Security-Policy")!, /^default-src 'none'; /);
    assert.match(await screen.text(), /Grace Hopper/);
    const plain = await f.svc.request(url.pathname, { headers: { Cookie: pair } });
    assert.equal(
      framing(plain),
      "frame-ancestors 'self' https://host.test",
      "the view (and framing) belongs to the login the launch created, whatever the URL says",
    );
    await plain.body?.cancel();
    const noCookie = await f.svc.request(url.pathname);
    assert.equal(noCookie.status, 303, "no cookie: sign in first");
    assert.equal(
      noCookie.headers.get("Location"),
      `/portal/login?next=${encodeURIComponent(url.pathname)}`,
    );
    assert.deepEqual(delta(before, await f.counts()), {
      agents: 1,
      customers: 1,
      sessions: 1,
      devices: 1,
      fields: 1,
      logins: 1,
      launches: 1,
    });
    const sessionId = Number(url.pathname.split("/").pop());
    const [s] = await f.svc.db.sql`select s.*, u.external_id from sessions s
      join users u on u.id = s.assignee_id where s.id = ${sessionId}`;
    assert.equal(s.externalReference, "CASE00017");
    assert.equal(s.externalId, p.context.user.id);
    const [l] = await f.svc.db.sql`select * from launches where session_id = ${sessionId}`;
    assert.equal(l.outcome, "ok");
    assert.equal(l.view.target, "standard");
    assert.equal(l.payload.context.user.id, p.context.user.id);
  });

  test("JSON callers get ids and the redirect URL; a second launch finds both", async (f) => {
    const p = freshPayload();
    const first = await f.launchJson(p);
    assert.equal(first.status, 200);
    assert.deepEqual(Object.keys(first.body).sort(), [
      "agentId",
      "customerId",
      "launchId",
      "redirectUrl",
      "sessionId",
      "warnings",
    ]);
    assert.deepEqual(first.body.warnings, []);
    const before = await f.counts();
    const again = await f.launchJson(p);
    const d = delta(before, await f.counts());
    assert.equal(d.agents, undefined, "the agent is found by external id");
    assert.equal(d.customers, undefined, "the customer is found by e-mail");
    assert.equal(d.sessions, 1);
    assert.equal(again.body.agentId, first.body.agentId);
    assert.equal(again.body.customerId, first.body.customerId);
  });

  test(
    "is exactly 2 round trips (app lookup, one launch_apply call); 1 with the app cached",
    async (f) => {
      forgetApps(f.svc.deps);
      const created = await f.launchJson(freshPayload());
      forgetApps(f.svc.deps);
      for (const existing of [false, true]) {
        const p = existing
          ? freshPayload({ sessionId: String(created.body.sessionId) })
          : freshPayload({ deviceComputer: { serial: "S9" }, customFields: { priority: "low" } });
        const before = f.queries.length;
        const { status } = await f.launchJson(p);
        assert.equal(status, 200);
        const sent = f.queries.slice(before).map((q) => {
          const text = q.replace(/\s+/g, " ").trim().toLowerCase();
          return /^select launch_apply\(\$1::jsonb\)/.test(text)
            ? "launch_apply"
            : /from apps/.test(text)
            ? "app"
            : text.slice(0, 60);
        });
        assert.deepEqual(
          sent,
          [...(existing ? [] : ["app"]), "launch_apply"],
          existing ? "existing session" : "new session",
        );
      }
    },
  );

  test("finds the agent by e-mail when the external id is new; profile updated", async (f) => {
    const p = freshPayload();
    await f.launchJson(p);
    const renamed = uniqueId("newid");
    await f.launchJson(
      launchPayload(p.context.environment.parameters, {
        ...p.context.user,
        id: renamed,
        first_name: "Augusta",
      }),
    );
    const rows = await f.svc.db.sql`select external_id, first_name from users
      where lower(email) = ${p.context.user.email}`;
    assert.deepEqual(rows.map((r) => [r.externalId, r.firstName]), [[renamed, "Augusta"]]);
  });

  test("finds the customer by contactId when the e-mail is new", async (f) => {
    const p = freshPayload();
    await f.launchJson(p);
    const contactId = p.context.environment.parameters.contactId;
    const email = `${uniqueId("new")}@example.org`;
    await f.launchJson(launchPayload({ ...p.context.environment.parameters, contactEmail: email }));
    const rows = await f.svc.db.sql`select email from customers where external_id = ${contactId}`;
    assert.deepEqual(rows.map((r) => r.email), [email]);
  });

  test("of an existing session: assigns only an open one; closed keeps both", async (f) => {
    const p = freshPayload();
    const first = await f.launchJson(p);
    const sid = first.body.sessionId;
    const bob = uniqueId("bob");
    const other = await f.launchJson(
      launchPayload({ ...p.context.environment.parameters, sessionId: sid, assign: 1 }, {
        id: bob,
        email: `${bob}@example.com`,
        first_name: "Bob",
      }),
    );
    assert.equal(other.body.sessionId, sid);
    let [s] = await f.svc.db.sql`select assignee_id, status from sessions where id = ${sid}`;
    assert.equal(s.assigneeId, other.body.agentId);
    await f.svc.db.sql`update sessions set status = 'closed' where id = ${sid}`;
    const params = p.context.environment.parameters;
    await f.launchJson(
      launchPayload({ ...params, sessionId: String(sid), assign: "true" }, p.context.user),
    );
    [s] = await f.svc.db.sql`select assignee_id, status from sessions where id = ${sid}`;
    assert.equal(s.status, "closed");
    assert.equal(s.assigneeId, other.body.agentId);
    const noAssign = await f.launchJson(
      launchPayload({ ...params, sessionId: sid }, p.context.user),
    );
    assert.equal(noAssign.status, 200);
  });

  test("with an unknown sessionId: 404 and nothing written, not even the agent", async (f) => {
    const before = await f.counts();
    const { status, body } = await f.launchJson(freshPayload({ sessionId: 999999 }));
    assert.equal(status, 404);
    assert.deepEqual(body, {
      code: "session_not_found",
      message: "Session 999999 not found",
      requestId: body.requestId,
    });
    assert.match(body.requestId, /^[0-9a-f-]{36}$/, "the request id (X-Request-Id)");
    assert.deepEqual(delta(before, await f.counts()), { launches: 1 }, "only the log record");
    const [l] = await f.svc.db.sql`select outcome from launches order by id desc limit 1`;
    assert.equal(l.outcome, "session_not_found");
  });

  test("failing late in the flow rolls everything back", async (f) => {
    // The agent's e-mail is an administrator's: the refusal comes after the statement that
    // inserted the new customer, which must be rolled back with everything else.
    const bossId = uniqueId("boss");
    await f.svc.db.sql`insert into users (role, email, first_name, last_name)
      values ('admin', ${`${bossId}@example.com`}, 'Boss', 'Person')`;
    const before = await f.counts();
    const { status } = await f.launchJson(freshPayload({}, { email: `${bossId}@example.com` }));
    assert.equal(status, 403);
    assert.deepEqual(delta(before, await f.counts()), { launches: 1 }, "only the log record");
  });

  test("checks custom fields, field settings and guided paths", async (f) => {
    const cf = await f.launchJson(
      freshPayload({ customFields: { color: "red", priority: "low" } }),
    );
    assert.equal(cf.status, 400);
    assert.match(cf.body.message, /not configured: color/);
    const bad = await f.launchJson(freshPayload({
      paths: {
        search: [{ search_type: "category_uid", search_values: [crypto.randomUUID()] }, {
          search_type: "tag",
          search_values: ["nope"],
        }],
      },
    }));
    assert.equal(bad.status, 400);
    assert.equal(bad.body.errors.length, 2);
    const ok = await f.launchJson(freshPayload({
      paths: {
        search: [{ search_type: "category_uid", search_values: [f.category.uid] }, {
          search_type: "path_uid",
          search_values: [f.path.uid],
        }, { search_type: "tag", search_values: ["Printer"] }],
      },
    }));
    assert.equal(ok.status, 200);
    const hidden = await (await f.svc.api("POST", "/api/v1/admin/paths", f.adminToken, {
      title: "Soon hidden",
      categoryUid: f.category.uid,
      published: true,
    })).json();
    await f.svc.api("PATCH", `/api/v1/admin/paths/${hidden.uid}`, f.adminToken, {
      published: false,
    });
    const stale = await f.launchJson(freshPayload({
      paths: { search: [{ search_type: "path_uid", search_values: [hidden.uid] }] },
    }));
    assert.equal(stale.status, 400);
    assert.match(stale.body.errors[0].message, /unpublished/);
    await f.svc.api("PUT", "/api/v1/admin/field-settings", f.adminToken, {
      session: { externalSessionId: false },
      consumer: { externalCustomerId: true },
    });
    try {
      const off = await f.launchJson(freshPayload());
      assert.equal(off.status, 409);
      assert.match(off.body.message, /Session Data/);
    } finally {
      await f.svc.api("PUT", "/api/v1/admin/field-settings", f.adminToken, {
        session: { externalSessionId: true },
        consumer: { externalCustomerId: true },
      });
    }
  });

  test("spec §7: GET is 405 'Cannot GET <path>', bad user id, bad signature", async (f) => {
    const get = await f.svc.request("/portal/api/auth/app/crm?x=1");
    assert.equal(get.status, 405);
    assert.equal(get.headers.get("Allow"), "POST");
    assert.equal(await get.text(), "Cannot GET /portal/api/auth/app/crm");
    const put = await f.svc.request("/portal/api/auth/app/crm", { method: "PUT" });
    assert.equal(await put.text(), "Cannot PUT /portal/api/auth/app/crm");
    const user = await f.launchJson(freshPayload({}, { id: "not valid!" }));
    assert.equal(user.status, 400);
    assert.deepEqual(user.body, { message: "Error evaluating User" });
    const sig = await f.launch(freshPayload(), { json: true, key: "wrong-key-0000000000" });
    assert.equal(sig.status, 401);
    const refused = await sig.json();
    assert.deepEqual(refused, {
      code: "invalid_signature",
      message: "Invalid signature",
      hint: { code: "wrong_key", message: refused.hint.message },
      requestId: sig.headers.get("X-Request-Id"),
    });
    const unknown = await f.launch(freshPayload(), {
      json: true,
      path: "/portal/api/auth/app/nope",
    });
    assert.equal(unknown.status, 404);
    assert.deepEqual(await unknown.json(), {
      code: "app_not_found",
      message: "Unknown application: nope",
      requestId: unknown.headers.get("X-Request-Id"),
    });
  });

  test("refusals reach browsers as a page that posts to the allowed origin only", async (f) => {
    const res = await f.launch(freshPayload({}, { email: "bad" }));
    assert.equal(res.status, 400);
    assert.equal(framing(res), "frame-ancestors 'self' https://host.test");
    const csp = res.headers.get("Content-Security-Policy")!;
    const nonce = csp.match(/script-src 'self' 'nonce-([A-Za-z0-9_-]+)'/)?.[1];
    assert.ok(nonce, csp);
    const html = await res.text();
    assert.match(html, new RegExp(`<script nonce="${nonce}">`), "the inline script has the nonce");
    assert.match(html, /role="alert"/);
    assert.match(html, /"type":"portal-launcher:error"/);
    assert.match(html, /\["https:\/\/host\.test"\]/);
    assert.match(html, /context\.user\.email/);
  });

  test("accepts multipart/form-data bodies like url-encoded ones", async (f) => {
    const form = new FormData();
    form.set("signed_request", await signLaunch(freshPayload(), f.app.apiKey));
    const res = await f.svc.request("/portal/api/auth/app/crm", {
      method: "POST",
      headers: { Accept: "application/json" },
      body: form,
    });
    assert.equal(res.status, 200);
    assert.match((await res.json()).redirectUrl, /\/portal\/sessions\/\d+\?launch=\d+$/);
    const missing = new FormData();
    missing.set("other", "x");
    const none = await f.svc.request("/portal/api/auth/app/crm", {
      method: "POST",
      headers: { Accept: "application/json" },
      body: missing,
    });
    assert.equal(none.status, 400);
    assert.match((await none.json()).message, /signed_request/);
  });

  test("refuses an administrator's e-mail or id as the agent", async (f) => {
    const bossId = uniqueId("boss");
    const bossEmail = `${bossId}@example.com`;
    const [boss] = await f.svc.db.sql`
      insert into users (role, external_id, email, first_name, last_name)
      values ('admin', ${bossId}, ${bossEmail}, 'Boss', 'Person') returning id`;
    // An agent promoted to administrator keeps the external id its app knew it by.
    await f.svc.db.sql`insert into agent_external_ids (app_id, external_id, user_id)
      select id, ${bossId}, ${boss.id} from apps where app_name = 'crm'`;
    const before = await f.counts();
    for (const user of [{ email: bossEmail.toUpperCase() }, { id: bossId }]) {
      const { status, body } = await f.launchJson(freshPayload({}, user));
      assert.equal(status, 403, JSON.stringify(body));
      assert.match(body.message, /administrator/);
    }
    const dry = await f.dryRun(freshPayload({}, { email: bossEmail }));
    assert.equal(dry.status, 403);
    assert.deepEqual(delta(before, await f.counts()), { launches: 2 }, "only the log records");
    const [u] = await f.svc.db.sql`select role, first_name from users where id = ${boss.id}`;
    assert.deepEqual([u.role, u.firstName], ["admin", "Boss"]);
  });

  test("answers 413 to a body over 64 KiB and 415 to a JSON body", async (f) => {
    const big = await f.svc.request("/portal/api/auth/app/crm", {
      method: "POST",
      headers: { Accept: "application/json" },
      body: new URLSearchParams({ signed_request: "x".repeat(70 * 1024) }),
    });
    assert.equal(big.status, 413);
    assert.deepEqual(await big.json(), {
      code: "body_too_large",
      message: "Request body too large (limit 64 KiB)",
      requestId: big.headers.get("X-Request-Id"),
    });
    const json = await f.svc.request("/portal/api/auth/app/crm", {
      method: "POST",
      headers: { Accept: "application/json", "Content-Type": "application/json" },
      body: "{}",
    });
    assert.equal(json.status, 415);
    await json.body?.cancel();
  });

  test("dry run writes nothing and answers the plan, with CORS for allowed origins", async (f) => {
    const known = freshPayload();
    await f.launchJson(known);
    const before = await f.counts();
    const res = await f.svc.request("/portal/api/auth/app/crm/validate", {
      method: "POST",
      headers: { Origin: "https://host.test" },
      body: new URLSearchParams({
        signed_request: await signLaunch(
          freshPayload({
            contactId: known.context.environment.parameters.contactId,
            contactEmail: known.context.environment.parameters.contactEmail,
          }),
          f.app.apiKey,
        ),
      }),
    });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("Access-Control-Allow-Origin"), "https://host.test");
    assert.deepEqual(await res.json(), {
      ok: true,
      plan: { agent: "create", customer: "update", session: "create", assign: true },
      warnings: [],
    });
    assert.deepEqual(delta(before, await f.counts()), {}, "nothing, not even a log record");
    const denied = await f.svc.request("/portal/api/auth/app/crm/validate", {
      method: "POST",
      headers: { Origin: "http://evil.test" },
      body: new URLSearchParams({ signed_request: "x.y" }),
    });
    assert.equal(denied.status, 401);
    assert.equal(denied.headers.get("Access-Control-Allow-Origin"), null);
    await denied.body?.cancel();
  });

  test("20 simultaneous launches for a new agent and customer make one of each", async (f) => {
    const p = freshPayload();
    const results = await Promise.all(Array.from({ length: 20 }, () => f.launchJson(p)));
    assert.deepEqual(results.map((r) => r.status), Array(20).fill(200));
    const [a] = await f.svc.db
      .sql`select count(*) from users where external_id = ${p.context.user.id}`;
    const [c] = await f.svc.db.sql`select count(*) from customers
      where external_id = ${p.context.environment.parameters.contactId}`;
    assert.equal(Number(a.count), 1);
    assert.equal(Number(c.count), 1);
    assert.equal(new Set(results.map((r) => r.body.agentId)).size, 1);
  });
}
