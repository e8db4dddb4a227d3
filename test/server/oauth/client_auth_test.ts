import assert from "node:assert/strict";
import { decodeBasicAuth, readClientCredentials } from "../../../server/oauth/client_auth.ts";
import { OAuthError } from "../../../server/http/errors.ts";

function basic(id: string, secret: string): string {
  const form = (s: string) => encodeURIComponent(s).replace(/%20/g, "+");
  return "Basic " + new TextEncoder().encode(`${form(id)}:${form(secret)}`).toBase64();
}

Deno.test("Basic decoding form-url-decodes id and secret (RFC 6749 §2.3.1)", () => {
  const cases: [string, string][] = [
    ["client", "a+b c"],
    ["cli%ent", "100%"],
    ["id:with:colons", "se:cret"],
    ["Zoë", "pässwörd-ü€"],
  ];
  for (const [id, secret] of cases) {
    const creds = decodeBasicAuth(basic(id, secret));
    assert.deepEqual(creds, { clientId: id, clientSecret: secret, method: "basic" });
  }
});

Deno.test("Basic decoding treats a raw + as a space, as form decoding does", () => {
  const raw = "Basic " + new TextEncoder().encode("id:a+b").toBase64();
  assert.equal(decodeBasicAuth(raw)?.clientSecret, "a b");
});

Deno.test("Basic decoding ignores other schemes and rejects malformed values with 401", () => {
  assert.equal(decodeBasicAuth("Bearer abc"), null);
  assert.equal(decodeBasicAuth(undefined), null);
  for (const bad of ["Basic !!!", "Basic " + btoa("no-colon"), "Basic " + btoa("id:%zz")]) {
    assert.throws(() => decodeBasicAuth(bad), (err: unknown) => {
      assert.ok(err instanceof OAuthError);
      assert.equal(err.status, 401);
      assert.equal(err.code, "invalid_client");
      assert.match(err.headers!["WWW-Authenticate"], /^Basic/);
      return true;
    });
  }
});

Deno.test("client credentials: one method only", () => {
  assert.throws(
    () => readClientCredentials(basic("a", "b"), { client_secret: "b" }),
    (err: OAuthError) => err.code === "invalid_request",
  );
  assert.throws(
    () => readClientCredentials(undefined, { client_id: "a" }),
    (err: OAuthError) => err.code === "invalid_request" && err.status === 400,
  );
  assert.throws(
    () => readClientCredentials(undefined, {}),
    (err: OAuthError) => err.code === "invalid_client" && err.status === 401,
  );
  assert.deepEqual(readClientCredentials(undefined, { client_id: "a", client_secret: "b" }), {
    clientId: "a",
    clientSecret: "b",
    method: "post",
  });
});
