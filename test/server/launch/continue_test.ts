/**
 * A launch posted by a page without an origin (`Origin: null`) for an app with frame ancestors:
 * it runs, signs no one in, and the browser continues through the continue page's form, which only
 * the portal's own origin may post (server/launch/continue.tsx).
 */
import assert from "node:assert/strict";
import { backends } from "../../helpers/db.ts";
import { createTestApp } from "../../helpers/launch.ts";
import type { Json } from "../../helpers/payload.ts";
import { uniqueId } from "../../helpers/shared.ts";
import { PORTAL_COOKIE } from "../../../server/auth/cookies.ts";
import { sha256 } from "../../../server/crypto/hashing.ts";
import { needsContinue } from "../../../server/launch/continue.tsx";
import { delta, fixtureTest, freshPayload, type LaunchFixture, launchFixtures } from "./fixture.ts";

const fixtures = launchFixtures(backends);
const PORTAL = "http://portal.test";
const SAME_ORIGIN = { Origin: PORTAL, "Sec-Fetch-Site": "same-origin" };

/** Posts `payload` signed for `app` (the fixture's `crm`, framed by https://host.test). */
function launch(
  f: LaunchFixture,
  payload: Json,
  headers: Record<string, string>,
  app: { appName: string; apiKey: string } = f.app,
): Promise<Response> {
  return f.launch(payload, {
    key: app.apiKey,
    path: `/portal/api/auth/app/${app.appName}`,
    headers,
  });
}

/** The portal login cookie a response sets (`name=value`), or null. */
function loginCookie(res: Response): string | null {
  const set = res.headers.getSetCookie().find((c) => c.startsWith(`${PORTAL_COOKIE}=`));
  return set ? set.split(";")[0] : null;
}

/** The continue form's action and hidden fields, read from the page. */
function continueForm(html: string): { action: string; fields: Record<string, string> } {
  const action = /<form method="post" action="([^"]+)"/.exec(html)?.[1];
  assert.ok(action, html);
  const fields: Record<string, string> = {};
  for (const m of html.matchAll(/<input type="hidden" name="([a-z]+)" value="([^"]*)"/g)) {
    fields[m[1]] = m[2];
  }
  return { action, fields };
}

async function postContinue(
  f: LaunchFixture,
  fields: Record<string, string>,
  headers: Record<string, string> = SAME_ORIGIN,
): Promise<Response> {
  return await f.svc.request("/portal/api/auth/continue", {
    method: "POST",
    headers: { Accept: "text/html", ...headers },
    body: new URLSearchParams(fields),
  });
}

Deno.test("continue: only Origin null, and only for an app with frame ancestors", () => {
  const framed = { frameAncestors: ["https://host.test"] };
  assert.equal(needsContinue(framed, "null"), true);
  assert.equal(needsContinue({ frameAncestors: [] }, "null"), false);
  for (const origin of [undefined, "", "https://host.test", "https://evil.test", "NULL"]) {
    assert.equal(needsContinue(framed, origin), false, String(origin));
  }
});

for (const backend of backends) {
  const test = fixtureTest(fixtures, backend, "continue ");

  test("Origin null: the launch runs, signs no one in, and the page continues", async (f) => {
    const agent = uniqueId("agent");
    const payload = freshPayload({}, {
      id: agent,
      email: `${agent}@example.com`,
      first_name: "Grace",
      last_name: "Hopper",
    });
    const before = await f.counts();
    const res = await launch(f, payload, { Origin: "null" });
    const html = await res.text();
    assert.equal(res.status, 200, html);
    assert.equal(loginCookie(res), null, "no login cookie from a page without an origin");
    assert.equal(res.headers.get("Cache-Control"), "no-store");
    assert.match(
      res.headers.get("Content-Security-Policy") ?? "",
      /frame-ancestors[^;]*host\.test/,
    );
    assert.match(html, /Continue to the portal/);
    assert.match(
      html,
      new RegExp(`Grace Hopper</strong> \\(${agent.toLowerCase()}@example\\.com\\)`),
    );
    assert.match(html, /Continue as Grace Hopper/);
    assert.equal(delta(before, await f.counts()).sessions, 1, "the launch was applied");

    assert.match(html, /<button type="submit" id="continue">/);
    assert.match(html, /<script nonce="[^"]+">[^<]*b\.disabled=true/, "the button starts off");

    const { action, fields } = continueForm(html);
    assert.equal(action, `${PORTAL}/portal/api/auth/continue`);
    assert.deepEqual(Object.keys(fields), ["login"]);
    const [launched] = await f.svc.db.sql`select l.id, l.session_id from launches l
      join users u on u.id = l.agent_id where u.email = ${`${agent.toLowerCase()}@example.com`}`;
    const went = await postContinue(f, fields);
    assert.equal(went.status, 303, await went.text());
    const screenUrl = `/portal/sessions/${launched.sessionId}?launch=${launched.id}`;
    assert.equal(went.headers.get("Location"), `${PORTAL}${screenUrl}`);
    const cookie = loginCookie(went);
    assert.equal(cookie, `${PORTAL_COOKIE}=${fields.login}`);
    const screen = await f.svc.request(screenUrl, { headers: { Cookie: cookie! } });
    assert.equal(screen.status, 200, "the session opens with the cookie");
    await screen.body?.cancel();
  });

  test("the form posted from another site, or without a launch's live login, sets nothing", async (f) => {
    const first = continueForm(await (await launch(f, freshPayload(), { Origin: "null" })).text());
    for (
      const headers of <Record<string, string>[]> [
        { Origin: "https://evil.test", "Sec-Fetch-Site": "cross-site" },
        { Origin: "null", "Sec-Fetch-Site": "cross-site" },
        { Origin: "https://host.test" },
      ]
    ) {
      const res = await postContinue(f, first.fields, headers);
      const html = await res.text();
      assert.equal(res.status, 403, JSON.stringify(headers));
      assert.equal(loginCookie(res), null);
      assert.match(html, /sent from another site/);
    }
    // A live portal login that no launch made (as a password sign-in's).
    const token = "B".repeat(43);
    await f.svc.db.sql`insert into logins (token_hash, user_id, expires_at, kind)
      select ${sha256(token)}, id, now() + interval '1 hour', 'portal' from users
      where role = 'agent' order by id limit 1`;
    for (
      const fields of <Record<string, string>[]> [
        { login: "A".repeat(43) }, // no such login
        { login: token },
        {},
        { login: "short" },
        { login: `${first.fields.login}x` },
      ]
    ) {
      const res = await postContinue(f, fields);
      const html = await res.text();
      assert.equal(res.status, 400, html);
      assert.equal(loginCookie(res), null);
      assert.match(html, /has expired or was never made/);
    }
    // The untouched form still works once.
    const went = await postContinue(f, first.fields);
    assert.equal(went.status, 303);
    assert.ok(loginCookie(went));
  });

  test("Origin null answered as JSON: the session, no cookie", async (f) => {
    const res = await launch(f, freshPayload(), { Origin: "null", Accept: "application/json" });
    const body = await res.json();
    assert.equal(res.status, 200, JSON.stringify(body));
    assert.ok(body.sessionId > 0 && body.launchId > 0);
    assert.equal(loginCookie(res), null);
  });

  test("unchanged: an allowed origin, no Origin, and an app without frame ancestors", async (f) => {
    const open = await createTestApp(f.svc, f.adminToken, uniqueId("open"));
    for (
      const [headers, app] of <[Record<string, string>, { appName: string; apiKey: string }][]> [
        [{ Origin: "https://host.test" }, f.app],
        [{}, f.app],
        [{ Origin: "null" }, open],
      ]
    ) {
      const res = await launch(f, freshPayload(), headers, app);
      assert.equal(res.status, 303, `${JSON.stringify(headers)} ${await res.text()}`);
      assert.ok(loginCookie(res), "signed in at once");
    }
  });
}
