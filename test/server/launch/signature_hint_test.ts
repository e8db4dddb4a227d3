/** Why a signed_request did not verify (signature_hint.ts), and where a payload's JSON breaks. */
import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import { encodeBase64 } from "../../../server/crypto/base64.ts";
import { AppError } from "../../../server/http/errors.ts";
import { errorPage } from "../../../server/launch/error_page.tsx";
import { jsonErrorPosition } from "../../../server/http/json_position.ts";
import { signatureHints } from "../../../server/launch/signature_hint.ts";
import { signPayload } from "../../../server/launch/signed_request.ts";

const KEY = "the-right-key-0123456789";
const JSON_TEXT = '{"algorithm":"HMACSHA256","context":{}}';
const codes = (raw: string) => signatureHints(raw, [KEY]).map((h) => h.code);

Deno.test("signature hints: a wrong key, told apart from every form the service can read", async () => {
  const good = await signPayload(JSON_TEXT, KEY);
  const [sig, payload] = good.split(".");
  assert.deepEqual(codes(await signPayload(JSON_TEXT, "another-key-0123456789")), ["wrong_key"]);
  const mac = createHmac("sha256", KEY).update(payload).digest();
  assert.deepEqual(codes(`${mac.toString("hex")}.${payload}`), ["signature_hex"]);
  assert.deepEqual(codes(`${encodeURIComponent(sig + "+")}.${payload}`), ["signature_not_base64"]);
  const mixed = `${sig.slice(0, 10)}-_+/${sig.slice(14)}`;
  assert.match(signatureHints(`${mixed}.${payload}`, [KEY])[0].message, /mixes the standard/);
  assert.deepEqual(codes(`${sig.slice(0, 20)}.${payload}`), ["signature_not_base64"]);
  assert.deepEqual(codes(`${sig}.${payload}%3D`), ["payload_not_base64"]);
  assert.deepEqual(codes(`${sig}.{"a":1}`), ["payload_not_base64"]);
  // With the key: the HMAC computed over the JSON text instead of its Base64.
  const overJson = createHmac("sha256", KEY).update(JSON_TEXT).digest("base64");
  assert.deepEqual(codes(`${overJson}.${payload}`), ["signed_json"]);
  // And the variants the Inspector has always named: URL-safe or unpadded after signing.
  const unpadded = encodeBase64('{"algorithm":"HMACSHA256","c":1}');
  assert.ok(unpadded.endsWith("="));
  const signed = await signPayload('{"algorithm":"HMACSHA256","c":1}', KEY);
  assert.deepEqual(codes(`${signed.split(".")[0]}.${unpadded.replace(/=+$/, "")}`), [
    "payload_unpadded",
  ]);
});

Deno.test("json position: the line and column where a JSON text breaks", () => {
  assert.deepEqual(jsonErrorPosition("not json"), { line: 1, column: 2 });
  assert.deepEqual(jsonErrorPosition('{\n  "a": 1,\n  "b": x\n}'), { line: 3, column: 8 });
  assert.deepEqual(jsonErrorPosition('{"a": [1, 2,]}'), { line: 1, column: 13 });
  assert.deepEqual(jsonErrorPosition('{"a": "b"'), { line: 1, column: 10 });
  assert.deepEqual(jsonErrorPosition('{"a": "\\q"}'), { line: 1, column: 9 });
  assert.deepEqual(jsonErrorPosition('{"a": 01}'), { line: 1, column: 8 });
  assert.deepEqual(jsonErrorPosition('{"a": 1} x'), { line: 1, column: 10 });
  assert.deepEqual(jsonErrorPosition('{"a": tru}'), { line: 1, column: 10 });
});

Deno.test("signature hints: the browser's error page shows the hint too", () => {
  const err = new AppError(401, "invalid_signature", "Invalid signature");
  err.extra = { hint: { code: "signature_hex", message: "The signature looks hex-encoded." } };
  assert.match(
    errorPage(err, [], "n"),
    /<p data-testid="hint">The signature looks hex-encoded.<\/p>/,
  );
  const plain = new AppError(400, "invalid_payload", "Invalid launch payload");
  assert.doesNotMatch(errorPage(plain, [], "n"), /data-testid="hint"/);
});
