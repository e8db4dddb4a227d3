import assert from "node:assert/strict";
import {
  frameBlocked,
  launchFailure,
  parseParameters,
  readSignResponse,
  readValidateResponse,
  toFailure,
  validateFailure,
  warmUpUrl,
} from "../../widget/src/protocol.ts";

Deno.test("widget protocol: the parameters attribute is a JSON object or nothing", () => {
  assert.deepEqual(parseParameters('{"contactId":"C1","sessionId":4}'), {
    contactId: "C1",
    sessionId: 4,
  });
  for (const bad of [null, "", "[1,2]", "nope", "42", "null"]) {
    assert.deepEqual(parseParameters(bad), {}, String(bad));
  }
});

Deno.test("widget protocol: sign-url answers are read or turned into launch errors", async () => {
  assert.deepEqual(
    await readSignResponse(Response.json({ action: "https://p/portal/x", signedRequest: "a.b" })),
    { action: "https://p/portal/x", signedRequest: "a.b" },
  );
  await assert.rejects(
    readSignResponse(
      Response.json(
        { message: "No contact", errors: [{ path: "contactId", message: "unknown" }] },
        {
          status: 422,
        },
      ),
    ),
    (e) => {
      assert.deepEqual(e, {
        status: 422,
        code: null,
        message: "No contact",
        errors: [{ path: "contactId", message: "unknown" }],
      });
      return true;
    },
  );
  await assert.rejects(
    readSignResponse(new Response("<html>oops</html>", { status: 500, statusText: "Error" })),
    (e) => {
      assert.deepEqual(e, {
        status: 500,
        code: null,
        message: "The sign-url answered 500 Error",
        errors: [],
      });
      return true;
    },
  );
  await assert.rejects(readSignResponse(Response.json({ action: 1 })), (e) => {
    assert.match((e as { message: string }).message, /\{action, signedRequest\}/);
    return true;
  });
});

Deno.test("widget protocol: the dry run passes on ok and reports the portal's error", async () => {
  await readValidateResponse(Response.json({ ok: true, plan: {} }));
  await assert.rejects(
    readValidateResponse(
      Response.json({ code: "session_not_found", message: "Session 9 not found" }, {
        status: 404,
      }),
    ),
    (e) => {
      assert.deepEqual(e, {
        status: 404,
        code: "session_not_found",
        message: "Session 9 not found",
        errors: [],
      });
      return true;
    },
  );
});

Deno.test("warmUpUrl: the portal's warm-up page, http(s) only", () => {
  const base = "https://crm.example.com/cases/1";
  assert.equal(
    warmUpUrl("https://portal.example.com/portal", base),
    "https://portal.example.com/portal/widget/warm",
  );
  assert.equal(
    warmUpUrl("https://portal.example.com/portal/?x=1#top", base),
    "https://portal.example.com/portal/widget/warm",
  );
  assert.equal(warmUpUrl("/portal", base), "https://crm.example.com/portal/widget/warm");
  assert.equal(warmUpUrl("", base), null);
  assert.equal(warmUpUrl("javascript:alert(1)//", base), null);
  assert.equal(warmUpUrl("data:text/html,x", base), null);
  assert.equal(warmUpUrl("http://[bad", base), null);
});

Deno.test("toFailure: a launch error passes unchanged, anything else becomes its message", () => {
  const refused = {
    status: 400,
    code: "invalid_payload",
    message: "Bad payload",
    errors: [{ path: "contactId", message: "required" }],
  };
  assert.deepEqual(toFailure(refused), refused);
  assert.deepEqual(toFailure({ status: 502, message: "Bad gateway" }), {
    status: 502,
    code: null,
    message: "Bad gateway",
    errors: [],
  });
  assert.deepEqual(toFailure(new TypeError("Failed to fetch")), {
    status: 0,
    code: null,
    message: "TypeError: Failed to fetch",
    errors: [],
  });
  assert.deepEqual(toFailure("offline"), { status: 0, code: null, message: "offline", errors: [] });
  assert.deepEqual(launchFailure(0, "sign_url_missing", "sign-url is required"), {
    status: 0,
    code: "sign_url_missing",
    message: "sign-url is required",
    errors: [],
  });
});

Deno.test("widget protocol: a refused dry run tells CORS from an unreachable portal", async () => {
  const action = "https://portal.example.com/portal/api/auth/app/crm";
  const probed: string[] = [];
  const up = (url: string) => (probed.push(url), Promise.resolve(new Response()));
  const refused = await validateFailure(
    action,
    new TypeError("Failed to fetch"),
    "https://crm.test",
    up,
  );
  assert.deepEqual(probed, ["https://portal.example.com/"]);
  assert.equal(refused.code, "origin_not_allowed");
  assert.deepEqual(refused.errors, [
    { path: "origin", message: "Add https://crm.test to the app's allowed origins" },
  ]);
  const down = () => Promise.reject(new TypeError("Failed to fetch"));
  const unreachable = await validateFailure(
    action,
    new TypeError("Failed to fetch"),
    "https://crm.test",
    down,
  );
  assert.deepEqual(unreachable, {
    status: 0,
    code: "portal_unreachable",
    message: "Cannot reach the portal: Failed to fetch",
    errors: [],
  });
});

Deno.test("widget protocol: a frame that never reported ready names the origin to allow", () => {
  const blocked = frameBlocked("https://crm.test", 8000);
  assert.equal(blocked.code, "frame_blocked");
  assert.match(
    blocked.message,
    /within 8 s: .*Add https:\/\/crm\.test to the app's allowed origins/,
  );
  assert.deepEqual(blocked.errors, [
    { path: "origin", message: "Add https://crm.test to the app's allowed origins" },
  ]);
});
