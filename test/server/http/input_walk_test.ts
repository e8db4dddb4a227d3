/**
 * Inputs refused the same way on every route: a body over its path's limit answers 413
 * `body_too_large` before any guard or parser reads it (with Content-Length and streamed), on
 * every method of every registered route, signed in or not; U+0000 in a URL path, a query
 * parameter, a JSON value or key, or a form field, or half a surrogate pair in a JSON body,
 * answers 400 naming the field.
 */
import assert from "node:assert/strict";
import { pglite } from "../../helpers/db.ts";
import { startTestService, type TestService } from "../../helpers/service.ts";
import { sharedFixture } from "../../helpers/shared.ts";
import { samplePath } from "../../helpers/access_walk.ts";
import { bodyLimitFor, bodyLimitRules } from "../../../server/http/body_limit.ts";

const opts = { sanitizeOps: false, sanitizeResources: false };
const fixture = sharedFixture(
  () => startTestService(pglite),
  (svc: TestService) => svc.close(),
);

/** A body that streams `bytes` bytes without a Content-Length. */
function streamed(bytes: number): ReadableStream<Uint8Array> {
  let left = bytes;
  return new ReadableStream({
    pull(controller) {
      if (left <= 0) return controller.close();
      const chunk = new Uint8Array(Math.min(left, 16 * 1024)).fill(0x61);
      left -= chunk.length;
      controller.enqueue(chunk);
    },
  });
}

Deno.test("body limits: every route answers 413 body_too_large over its limit", opts, async () => {
  const svc = await fixture();
  const token = await svc.adminToken();
  const rules = bodyLimitRules("/portal");
  const seen = new Set<string>();
  const failures: string[] = [];
  let checked = 0;
  for (const route of svc.app.routes) {
    const methods = route.method === "ALL" ? ["POST"] : [route.method];
    for (const method of methods) {
      if (method === "GET" || method === "HEAD" || method === "OPTIONS") continue;
      const path = samplePath(route.path);
      if (seen.has(`${method} ${path}`)) continue;
      seen.add(`${method} ${path}`);
      const kib = bodyLimitFor(rules, path);
      for (const auth of [false, true]) {
        for (const mode of ["length", "stream"] as const) {
          const bytes = kib * 1024 + 1;
          const res = await svc.app.request(`http://portal.test${path}`, {
            method,
            headers: {
              "Content-Type": "application/json",
              ...(auth ? { Authorization: `Bearer ${token}` } : {}),
              ...(mode === "length" ? { "Content-Length": String(bytes) } : {}),
            },
            body: mode === "length" ? "a".repeat(bytes) : streamed(bytes),
            // @ts-ignore: Deno needs duplex for a streamed request body.
            duplex: "half",
          });
          checked++;
          const body = await res.text();
          const want = `Request body too large (limit ${kib} KiB)`;
          if (res.status !== 413 || JSON.parse(body).code !== "body_too_large") {
            failures.push(`${method} ${path} (${mode}, auth ${auth}): ${res.status} ${body}`);
          } else assert.equal(JSON.parse(body).message, want);
        }
      }
    }
  }
  assert.deepEqual(failures, [], failures.join("\n"));
  assert.ok(checked > 150, `sent ${checked} requests`);
  // The figures the docs state.
  assert.equal(bodyLimitFor(rules, "/api/v1/sessions/1"), 64);
  assert.equal(bodyLimitFor(rules, "/api/v1/oauth2/token"), 16);
  assert.equal(bodyLimitFor(rules, "/api/v1/admin/paths"), 256);
  assert.equal(bodyLimitFor(rules, "/admin/apps/new"), 256);
  assert.equal(bodyLimitFor(rules, "/portal/api/auth/app/crm"), 64);
  assert.equal(bodyLimitFor(rules, "/portal/api/auth/app/crm/validate"), 64);
  assert.equal(bodyLimitFor(rules, "/portal/login"), 16);
  assert.equal(bodyLimitFor(rules, "/nowhere"), 64);
});

Deno.test("body limits: a body at the limit is read", opts, async () => {
  const svc = await fixture();
  const token = await svc.adminToken();
  // 64 KiB exactly: the limit lets it through, and PATCH answers about the session instead.
  const body = JSON.stringify({ status: "open", pad: "" });
  const padded = body.replace('""', `"${"x".repeat(64 * 1024 - body.length)}"`);
  assert.equal(padded.length, 64 * 1024);
  const res = await svc.request("/api/v1/sessions/999999999", {
    method: "PATCH",
    headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
    body: padded,
  });
  assert.notEqual(res.status, 413, await res.clone().text());
  await res.body?.cancel();
});

Deno.test("U+0000: refused with 400 naming the field on every input path", opts, async (t) => {
  const svc = await fixture();
  const token = await svc.adminToken();
  const json = (res: Response) => res.json();
  const cases: [string, () => Promise<Response>, string][] = [
    ["a query parameter", () => svc.api("GET", "/api/v1/sessions?status=op%00en", token), "status"],
    ["a path segment", () => svc.api("GET", "/api/v1/agents/a%00b", token), "(path)"],
    [
      "a JSON value",
      () => svc.api("PATCH", "/api/v1/sessions/1", token, { referenceId: "a\u0000b" }),
      "referenceId",
    ],
    [
      "a nested JSON key",
      () => svc.api("PATCH", "/api/v1/sessions/1", token, { customFields: { "a\u0000": "b" } }),
      "customFields.a\u0000",
    ],
    [
      "an admin JSON body",
      () => svc.api("POST", "/api/v1/admin/custom-fields", token, { name: "x\u0000y" }),
      "name",
    ],
    [
      "a portal form",
      () =>
        svc.request("/portal/login", {
          method: "POST",
          body: new URLSearchParams({ email: "a\u0000@example.com", password: "x" }),
        }),
      "email",
    ],
    [
      "an admin form",
      () =>
        svc.request("/admin/login", {
          method: "POST",
          body: new URLSearchParams({ email: "root@example.com", password: "p\u0000w" }),
        }),
      "password",
    ],
    [
      "a multipart form",
      () => {
        const form = new FormData();
        form.set("email", "a\u0000@example.com");
        return svc.request("/portal/login", { method: "POST", body: form });
      },
      "email",
    ],
  ];
  for (const [label, send, field] of cases) {
    await t.step(label, async () => {
      const res = await send();
      assert.equal(res.status, 400, label);
      const body = await json(res);
      assert.equal(body.code, "invalid_request");
      assert.deepEqual(body.errors.map((e: { path: string; code: string }) => [e.path, e.code]), [
        [field, "nul_character"],
      ]);
    });
  }

  await t.step("half a surrogate pair in a JSON body: 400 unpaired_surrogate", async () => {
    const cases: [() => Promise<Response>, string][] = [
      [
        () => svc.api("PATCH", "/api/v1/sessions/1", token, { customFields: { p: "\ud800" } }),
        "customFields.p",
      ],
      [
        () => svc.api("POST", "/api/v1/admin/custom-fields", token, { name: "x", label: "\udfff" }),
        "label",
      ],
      [() => svc.api("POST", "/api/v1/admin/paths", token, { ["t\udc00"]: 1 }), "t\udc00"],
    ];
    for (const [send, field] of cases) {
      const res = await send();
      const body = await json(res);
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.deepEqual(body.errors.map((e: { path: string; code: string }) => [e.path, e.code]), [
        [field, "unpaired_surrogate"],
      ]);
    }
    // Bytes that are not UTF-8 would be read as U+FFFD and stored so: refused instead.
    const latin1 = await svc.request("/api/v1/admin/custom-fields", {
      method: "POST",
      headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
      body: new Uint8Array([
        ...new TextEncoder().encode('{"name":"f","label":"caf'),
        0xe9,
        0x22,
        0x7d,
      ]),
    });
    assert.equal(latin1.status, 400);
    assert.match((await latin1.json()).message, /not UTF-8 text/);
    // A key named __proto__ (spelled out or escaped) would vanish in any schema: refused.
    for (
      const text of [
        '{"customFields":{"__proto__":{"p":"x"}}}',
        '{"customFields":{"\\u005f_proto__":{"p":"x"}}}',
      ]
    ) {
      const proto = await svc.request("/api/v1/sessions/1", {
        method: "PATCH",
        headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
        body: text,
      });
      const said = await proto.json();
      assert.equal(proto.status, 400, text);
      assert.deepEqual(said.errors.map((e: { path: string; code: string }) => [e.path, e.code]), [
        ["customFields.__proto__", "reserved_key"],
      ]);
    }
    // A whole character spelled as its two escapes is text.
    const pair = await svc.request("/api/v1/admin/custom-fields", {
      method: "POST",
      headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
      body: '{"name":"emoji_field","label":"\\ud83d\\ude00"}',
    });
    assert.equal(pair.status, 201, await pair.clone().text());
    assert.equal((await pair.json()).label, "\u{1F600}");
  });

  await t.step("the token endpoint answers in RFC 6749's format", async () => {
    for (
      const form of [
        "grant_type=client_credentials&client_id=a%00b&client_secret=x",
        "grant_type=client%00credentials",
        "grant_type=client_credentials&cli%00ent=1",
      ]
    ) {
      const res = await svc.request("/api/v1/oauth2/token", {
        method: "POST",
        headers: { "Content-Type": "application/x-www-form-urlencoded" },
        body: form,
      });
      assert.equal(res.status, 400, form);
      const body = await res.json();
      assert.equal(body.error, "invalid_request");
      assert.match(body.error_description, /U\+0000/);
    }
    // In Basic credentials (Base64 of "\0:x" and "id:se\0cret"), named too.
    for (const [creds, field] of [["\0:x", "client_id"], ["id:se\0cret", "client_secret"]]) {
      const res = await svc.request("/api/v1/oauth2/token", {
        method: "POST",
        headers: { Authorization: `Basic ${btoa(creds)}` },
        body: new URLSearchParams({ grant_type: "client_credentials" }),
      });
      assert.equal(res.status, 400, creds);
      const body = await res.json();
      assert.equal(body.error, "invalid_request");
      assert.match(body.error_description, new RegExp(`${field} .*U\\+0000`));
    }
  });

  await t.step("the service is healthy after", async () => {
    assert.equal((await svc.request("/readyz")).status, 200);
  });
});
