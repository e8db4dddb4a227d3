import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { createHmac } from "node:crypto";
import { signPayload, verifySignedRequest } from "../../../server/launch/signed_request.ts";
import { signatureMatches } from "../../../server/launch/signature_match.ts";
import { AppError } from "../../../server/http/errors.ts";

interface Vector {
  name: string;
  apiKey: string;
  payloadJson: string;
  encodedPayload: string;
  signature: string;
  signedRequest: string;
}
const vectors: Vector[] = JSON.parse(
  await Deno.readTextFile(
    new URL("../../fixtures/signed_request.json", import.meta.url),
  ),
).cases;

function failure(verify: () => unknown): AppError {
  try {
    verify();
  } catch (err) {
    if (err instanceof AppError) return err;
    throw err;
  }
  throw new Error("expected an AppError");
}

Deno.test("signed_request vectors: signing reproduces each case byte for byte", async () => {
  assert.ok(vectors.length >= 4);
  for (const v of vectors) {
    assert.equal(await signPayload(v.payloadJson, v.apiKey), v.signedRequest, v.name);
  }
});

Deno.test("signed_request vectors: each case verifies and decodes to its JSON", () => {
  for (const v of vectors) {
    const verified = verifySignedRequest(v.signedRequest, [v.apiKey]);
    assert.equal(verified.payloadText, v.payloadJson, v.name);
    assert.equal(verified.encodedPayload, v.encodedPayload);
    assert.deepEqual(verified.payload, JSON.parse(v.payloadJson));
  }
});

Deno.test("signed_request vectors: a wrong key is 401 Invalid signature", () => {
  for (const v of vectors) {
    const err = failure(() => verifySignedRequest(v.signedRequest, [v.apiKey + "x"]));
    assert.equal(err.status, 401);
    assert.equal(err.message, "Invalid signature");
  }
});

Deno.test("signed_request accepts a URL-safe or unpadded signature", () => {
  const v = vectors.find((c) => c.name === "plus-and-slash")!;
  const urlSafe = v.signature.replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
  const verified = verifySignedRequest(`${urlSafe}.${v.encodedPayload}`, [v.apiKey]);
  assert.equal(verified.payloadText, v.payloadJson);
});

Deno.test("signed_request with '+' turned into spaces is repaired, with a warning", () => {
  const v = vectors.find((c) => c.name === "plus-and-slash")!;
  assert.ok(v.signedRequest.includes("+"));
  const out = verifySignedRequest(v.signedRequest.replaceAll("+", " "), [v.apiKey]);
  assert.equal(out.encodedPayload, v.encodedPayload, "the HMAC is over the repaired text");
  assert.equal(out.repaired?.code, "signed_request_repaired");
  assert.deepEqual(out.repaired?.repairs, ["spaces_to_plus"]);
  assert.match(out.repaired!.message, /'\+'.*%2B/);
  const clean = verifySignedRequest(v.signedRequest, [v.apiKey]);
  assert.equal(clean.repaired, null);
});

Deno.test("signed_request wrapped at 76 columns (MIME Base64) is repaired", () => {
  const v = vectors.find((c) => c.name === "plus-and-slash")!;
  const wrapped = v.signedRequest.replace(/(.{76})/g, "$1\r\n");
  assert.ok(wrapped.includes("\r\n"));
  const out = verifySignedRequest(wrapped, [v.apiKey]);
  assert.equal(out.encodedPayload, v.encodedPayload);
  assert.deepEqual(out.repaired?.repairs, ["line_breaks_removed"]);
  assert.match(out.repaired!.message, /one line/);
});

Deno.test("signed_request: a repair never loosens the HMAC check", () => {
  const v = vectors.find((c) => c.name === "plus-and-slash")!;
  // A '/' turned into a space is not a transport repair: the repaired text differs, 401.
  const damaged = v.signedRequest.replace("/", " ");
  if (damaged !== v.signedRequest) {
    assert.equal((failure(() => verifySignedRequest(damaged, [v.apiKey]))).status, 401);
  }
  const err = failure(() => verifySignedRequest(v.signedRequest, ["another-key-0123456789"]));
  assert.equal(err.status, 401);
});

Deno.test("signed_request: the HMAC covers the payload text exactly as received", () => {
  const v = vectors[0];
  // Same JSON, re-encoded URL-safe without padding: a different text, so a different MAC.
  const reencoded = v.encodedPayload.replace(/=+$/, "");
  assert.ok(!(signatureMatches(`${v.signature}.${reencoded}`, v.apiKey)));
  const tampered = v.encodedPayload.slice(0, -4) + "fQ==";
  assert.equal(
    (failure(() => verifySignedRequest(`${v.signature}.${tampered}`, [v.apiKey]))).status,
    401,
  );
});

Deno.test("signed_request: missing or malformed values are 400", () => {
  for (const raw of [undefined, ""]) {
    const err = failure(() => verifySignedRequest(raw, ["k"]));
    assert.equal(err.status, 400);
    assert.match(err.message, /signed_request is required/);
  }
  for (const raw of ["nodot", ".payload", "sig."]) {
    const err = failure(() => verifySignedRequest(raw, ["k"]));
    assert.equal(err.status, 400);
    assert.match(err.message, /<signature>\.<encoded_payload>/);
  }
});

Deno.test("signed_request: a signed payload that is not JSON, or not UTF-8, is 400", async () => {
  const key = "Zk3pQ9vX2mL7rT4wY8bN1cD5fH6jK0sA";
  const notJson = await signPayload('{\n  "algorithm": "HMACSHA256",\n  "context": }', key);
  const err = failure(() => verifySignedRequest(notJson, [key]));
  assert.equal(err.status, 400);
  assert.deepEqual(err.body(), {
    code: "invalid_payload_json",
    message: "The payload is Base64 but not JSON: it breaks at line 3, column 14",
    errors: [{ path: "signed_request", code: "invalid_json", message: "line 3, column 14" }],
    line: 3,
    column: 14,
  });
  const latin1 = new Uint8Array([0x7b, 0x22, 0xe9, 0x22, 0x7d]).toBase64();
  const mac = await crypto.subtle.sign(
    "HMAC",
    await crypto.subtle.importKey(
      "raw",
      new TextEncoder().encode(key),
      { name: "HMAC", hash: "SHA-256" },
      false,
      ["sign"],
    ),
    new TextEncoder().encode(latin1),
  );
  const raw = `${new Uint8Array(mac).toBase64()}.${latin1}`;
  assert.equal((failure(() => verifySignedRequest(raw, [key]))).status, 400);
  const arrayPayload = await signPayload("[1]", key);
  const array = failure(() => verifySignedRequest(arrayPayload, [key]));
  assert.match(array.message, /JSON object/);
});

Deno.test("signed_request: algorithm must be exactly HMACSHA256", async () => {
  const key = "Zk3pQ9vX2mL7rT4wY8bN1cD5fH6jK0sA";
  const cases: [unknown, string][] = [
    ["HMACSHA1", "Unsupported algorithm: HMACSHA1 (use HMACSHA256)"],
    ["hmacsha256", "Unsupported algorithm: hmacsha256 (use HMACSHA256)"],
    [undefined, "algorithm must be the string HMACSHA256, not missing"],
    [null, "algorithm must be the string HMACSHA256, not null"],
    [256, "algorithm must be the string HMACSHA256, not a number"],
    [["HMACSHA256"], "algorithm must be the string HMACSHA256, not an array"],
    // An object whose toString is not a function cannot be turned into text: still a 400.
    [{ toString: "x" }, "algorithm must be the string HMACSHA256, not an object"],
    [{ toString: 1, valueOf: 1 }, "algorithm must be the string HMACSHA256, not an object"],
  ];
  for (const [algorithm, message] of cases) {
    const raw = await signPayload(JSON.stringify({ algorithm, context: {} }), key);
    const err = failure(() => verifySignedRequest(raw, [key]));
    assert.equal(err.status, 400);
    assert.equal(err.code, "unsupported_algorithm");
    assert.equal(err.message, message);
  }
});

Deno.test("signed_request: any of several keys verifies (key rotation)", () => {
  const v = vectors[0];
  const verified = verifySignedRequest(v.signedRequest, ["old-key-0000000000", v.apiKey]);
  assert.equal(verified.payloadText, v.payloadJson);
});

Deno.test("signed_request: a payload nested deeper than 16 levels is refused before parsing", async () => {
  const deep = JSON.stringify({
    algorithm: "HMACSHA256",
    x: JSON.parse("[".repeat(5000) + "]".repeat(5000)),
  });
  const tooDeep = await signPayload(deep, "k");
  const err = failure(() => verifySignedRequest(tooDeep, ["k"]));
  assert.equal(err.status, 400);
  assert.equal(err.code, "payload_too_deep");
  const brackets = JSON.stringify({ algorithm: "HMACSHA256", note: "[[[[[[[[[[[[[[[[[[[[[[[[" });
  const ok = verifySignedRequest(await signPayload(brackets, "k"), ["k"]);
  assert.equal(ok.payload.note, "[[[[[[[[[[[[[[[[[[[[[[[[", "brackets inside strings do not count");
});

Deno.test("codec: a signature that starts with '+' still verifies when the '+' arrived as a space", async () => {
  const key = "Zk3pQ9vX2mL7rT4wY8bN1cD5fH6jK0sA";
  // About one signature in 64 starts with '+': find one deterministically.
  let signed = "";
  for (let i = 0; !signed.startsWith("+"); i++) {
    signed = await signPayload(JSON.stringify({ algorithm: "HMACSHA256", n: i }), key);
  }
  const verified = verifySignedRequest(signed.replaceAll("+", " "), [key]);
  assert.deepEqual(verified.repaired?.repairs, ["spaces_to_plus"]);
  // Stray line breaks and trailing blanks around it are still trimmed.
  const padded = verifySignedRequest(`\r\n${signed}  \n`, [key]);
  assert.equal(padded.repaired, null);
});

Deno.test("signed_request: an invalid signature answers a hint at its likeliest cause", async () => {
  const key = "Zk3pQ9vX2mL7rT4wY8bN1cD5fH6jK0sA";
  const good = await signPayload('{"algorithm":"HMACSHA256"}', key);
  const hintOf = (raw: string) =>
    (failure(() => verifySignedRequest(raw, [key])).body().hint as { code: string }).code;
  assert.equal(
    hintOf(await signPayload('{"algorithm":"HMACSHA256"}', "other-key-123")),
    "wrong_key",
  );
  const [sig, payload] = good.split(".");
  const hex = Buffer.from(sig, "base64").toString("hex");
  assert.equal(hintOf(`${hex}.${payload}`), "signature_hex");
  assert.equal(hintOf(`${sig.replace("=", "%3D")}.${payload}`), "signature_not_base64");
  assert.equal(hintOf(`${sig}.${payload}!`), "payload_not_base64");
  const overJson = createHmac("sha256", key).update('{"algorithm":"HMACSHA256"}').digest("base64");
  assert.equal(hintOf(`${overJson}.${payload}`), "signed_json");
});

Deno.test("signed_request: a payload segment outside printable ASCII verifies under no encoding", () => {
  // The HMAC's message is the segment's bytes; signed_request.ts hashes the string as UTF-8,
  // which equals its bytes only for ASCII. A segment with any other character is refused before
  // any HMAC, so no signature over its Latin-1 or its UTF-8 bytes can pass.
  const key = "Zk3pQ9vX2mL7rT4wY8bN1cD5fH6jK0sA";
  const encoded = Buffer.from(JSON.stringify({ algorithm: "HMACSHA256", context: {} }))
    .toString("base64");
  for (const odd of ["é", "\u00a0", "\u20ac", " ", "\u007f"]) {
    const segment = encoded.slice(0, 8) + odd + encoded.slice(8);
    for (const bytes of [Buffer.from(segment, "latin1"), Buffer.from(segment, "utf8")]) {
      const signature = createHmac("sha256", key).update(bytes).digest("base64");
      const raw = `${signature}.${segment}`;
      assert.equal(signatureMatches(raw, key), false, `${JSON.stringify(odd)} matched`);
      assert.equal(failure(() => verifySignedRequest(raw, [key])).status, 401);
    }
  }
  // The same segment without the odd character verifies, as UTF-8 and Latin-1 agree on ASCII.
  const signature = createHmac("sha256", key).update(encoded, "latin1").digest("base64");
  assert.equal(verifySignedRequest(`${signature}.${encoded}`, [key]).keyIndex, 0);
});
