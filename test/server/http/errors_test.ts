import assert from "node:assert/strict";
import { Hono } from "hono";
import { HTTPException } from "hono/http-exception";
import { requestId } from "hono/request-id";
import { AppError, handleError, OAuthError } from "../../../server/http/errors.ts";
import { setLogLevel } from "../../../server/log.ts";

function appThrowing(err: Error): Hono {
  const app = new Hono();
  app.get("/", () => {
    throw err;
  });
  app.onError(handleError);
  return app;
}

Deno.test("handleError hides unexpected errors behind a 500 with no details", async () => {
  setLogLevel("silent");
  const res = await appThrowing(new Error('relation "secret_table" does not exist')).request("/");
  assert.equal(res.status, 500);
  const text = await res.text();
  assert.doesNotMatch(text, /secret_table|at |stack/);
  assert.equal(JSON.parse(text).message, "Internal server error");
  setLogLevel("info");
});

Deno.test("handleError renders AppError with its status, field errors and headers", async () => {
  const res = await appThrowing(
    new AppError(409, "x", "Taken", [{ path: "a", message: "b" }], { "X-Extra": "1" }),
  ).request("/");
  assert.equal(res.status, 409);
  assert.equal(res.headers.get("X-Extra"), "1");
  assert.deepEqual(await res.json(), {
    code: "x",
    message: "Taken",
    errors: [{ path: "a", code: "invalid", message: "b" }],
  }, "a field error without a code gets the generic one");
});

Deno.test("AppError bodies carry the stable code, except the spec's Error evaluating User", () => {
  assert.deepEqual(new AppError(404, "session_not_found", "Session 9 not found").body(), {
    code: "session_not_found",
    message: "Session 9 not found",
  });
  assert.deepEqual(new AppError(400, "invalid_user", "Error evaluating User").body(), {
    message: "Error evaluating User",
  });
});

Deno.test("field errors: a missing value is `required`, a wrong type is `invalid_type`", async () => {
  await import("../../../server/zod_setup.ts");
  const { z } = await import("zod");
  const { fieldErrors } = await import("../../../server/http/errors.ts");
  const schema = z.strictObject({ disabled: z.boolean(), name: z.string() });
  const parsed = schema.safeParse({ disabled: "yes" });
  assert.ok(!parsed.success);
  assert.deepEqual(fieldErrors(parsed.error.issues), [
    { path: "disabled", code: "invalid_type", message: "expected boolean" },
    { path: "name", code: "required", message: "required" },
  ]);
});

Deno.test("handleError gives a browser an HTML page for a 500, with the request id", async () => {
  setLogLevel("silent");
  const app = new Hono<{ Variables: { requestId: string } }>();
  app.use("*", async (c, next) => {
    c.set("requestId", "req-<1>");
    await next();
  });
  app.get("/", () => {
    throw new Error('relation "secret_table" does not exist');
  });
  app.onError(handleError);
  const res = await app.request("/", { headers: { Accept: "text/html,application/xhtml+xml" } });
  assert.equal(res.status, 500);
  assert.match(res.headers.get("Content-Type")!, /^text\/html/);
  const page = await res.text();
  assert.match(page, /<h1>Something went wrong<\/h1>/);
  assert.match(page, /req-(&#60;|&lt;)1(&#62;|&gt;)/, "the request id, escaped");
  assert.doesNotMatch(page, /secret_table/);
  const json = await app.request("/", { headers: { Accept: "application/json" } });
  assert.equal((await json.json()).code, "internal_error");
  setLogLevel("info");
});

Deno.test("handleError puts the request id in JSON error bodies, except OAuth's and the spec's", async () => {
  const app = new Hono();
  app.use("*", requestId());
  const errors: Record<string, Error> = {
    app: new AppError(404, "session_not_found", "Session 9 not found"),
    http: new HTTPException(400, { message: "Malformed JSON in request body" }),
    oauth: new OAuthError(400, "invalid_request", "token is required"),
    user: new AppError(400, "invalid_user", "Error evaluating User"),
  };
  app.get("/:what", (c) => {
    throw errors[c.req.param("what")];
  });
  app.onError(handleError);
  const body = async (what: string) => {
    const res = await app.request(`/${what}`, { headers: { "X-Request-Id": `req-${what}` } });
    assert.equal(res.headers.get("X-Request-Id"), `req-${what}`);
    return await res.json();
  };
  assert.deepEqual(await body("app"), {
    code: "session_not_found",
    message: "Session 9 not found",
    requestId: "req-app",
  });
  assert.deepEqual(await body("http"), {
    code: "bad_request",
    message: "Malformed JSON in request body",
    requestId: "req-http",
  });
  assert.deepEqual(await body("oauth"), {
    error: "invalid_request",
    error_description: "token is required",
  });
  assert.deepEqual(await body("user"), { message: "Error evaluating User" });
});
