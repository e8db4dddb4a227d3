import assert from "node:assert/strict";
import { decodeBase64, encodeBase64 } from "../../../server/crypto/base64.ts";
import {
  hashPassword,
  hashSecret,
  verifyPassword,
  verifySecret,
} from "../../../server/crypto/hashing.ts";
import { createSecretBox, type SecretBox } from "../../../server/crypto/secret_box.ts";
import { MAX_CACHED_SECRETS, openCached } from "../../../server/crypto/secret_cache.ts";

const text = (bytes: Uint8Array | null) => bytes && new TextDecoder().decode(bytes);

Deno.test("base64 encodes UTF-8 text and decodes both alphabets, padded or not", () => {
  assert.equal(encodeBase64("Zoë"), "Wm/Dqw==");
  assert.equal(text(decodeBase64("Wm/Dqw==")), "Zoë");
  assert.equal(text(decodeBase64("Wm/Dqw")), "Zoë");
  assert.equal(text(decodeBase64("Wm_Dqw")), "Zoë");
  assert.equal(text(decodeBase64("Wm_Dqw==")), "Zoë");
});

Deno.test("base64 rejects whitespace, mixed alphabets and bad padding", () => {
  assert.equal(decodeBase64("Wm Dqw=="), null);
  assert.equal(decodeBase64("Wm/D_w=="), null);
  assert.equal(decodeBase64("Wm/Dqw="), null);
  assert.equal(decodeBase64("W"), null);
  assert.equal(decodeBase64("Wm/Dqw===="), null);
});

Deno.test("hashSecret verifies the right secret only and salts each hash", () => {
  const a = hashSecret("s3cret-value");
  const b = hashSecret("s3cret-value");
  assert.notEqual(a, b);
  assert.ok(verifySecret("s3cret-value", a));
  assert.ok(!(verifySecret("s3cret-valuE", a)));
  assert.ok(!(verifySecret("s3cret-value", "garbage")));
});

Deno.test("hashPassword uses PBKDF2 and verifies only the right password", async () => {
  const stored = await hashPassword("correct horse", 1000);
  assert.match(stored, /^pbkdf2-sha256\$1000\$/);
  assert.ok(await verifyPassword("correct horse", stored));
  assert.ok(!(await verifyPassword("correct horsE", stored)));
});

Deno.test("secret box round-trips and refuses another key", async () => {
  const box = await createSecretBox("k".repeat(32));
  const sealed = await box.encrypt("api-key-Zoë", "apps/1/api_key");
  assert.match(sealed, /^v2:/);
  assert.ok(!sealed.includes("api-key"));
  assert.notEqual(await box.encrypt("api-key-Zoë", "apps/1/api_key"), sealed);
  assert.equal(await box.decrypt(sealed, "apps/1/api_key"), "api-key-Zoë");
  const other = await createSecretBox("j".repeat(32));
  await assert.rejects(other.decrypt(sealed, "apps/1/api_key"), /SECRET_KEY differs/);
});

Deno.test("secret box binds each value to its app and field", async () => {
  const box = await createSecretBox("k".repeat(32));
  const sealed = await box.encrypt("the-key", "apps/1/api_key");
  await assert.rejects(box.decrypt(sealed, "apps/2/api_key"), /copied from another app/);
  await assert.rejects(box.decrypt(sealed, "apps/1/consumer_secret"));
});

Deno.test("secret box reads the previous key's values and says they need resealing", async () => {
  const old = await createSecretBox("o".repeat(32));
  const sealed = await old.encrypt("the-key", "apps/1/api_key");
  const rotated = await createSecretBox("n".repeat(32), "o".repeat(32));
  assert.equal(await rotated.decrypt(sealed, "apps/1/api_key"), "the-key");
  assert.equal(await rotated.needsReseal(sealed, "apps/1/api_key"), true);
  const resealed = await rotated.encrypt("the-key", "apps/1/api_key");
  assert.equal(await rotated.needsReseal(resealed, "apps/1/api_key"), false);
  const onlyNew = await createSecretBox("n".repeat(32));
  assert.equal(await onlyNew.decrypt(resealed, "apps/1/api_key"), "the-key");
  await assert.rejects(onlyNew.decrypt(sealed, "apps/1/api_key"), /SECRET_KEY_PREVIOUS/);
});

Deno.test("opened secrets are cached by context and sealed text, never across contexts", async () => {
  const box = await createSecretBox("k".repeat(32));
  let decrypts = 0;
  const counted: SecretBox = { ...box, decrypt: (s, c) => (decrypts++, box.decrypt(s, c)) };
  const sealed = await box.encrypt("the-key", "apps/1/api_key");
  assert.equal(await openCached(counted, sealed, "apps/1/api_key"), "the-key");
  assert.equal(await openCached(counted, sealed, "apps/1/api_key"), "the-key");
  assert.equal(decrypts, 1, "opened once");
  // Copied into another app's row or field, the value still does not open once it is cached.
  await assert.rejects(openCached(counted, sealed, "apps/2/api_key"), /copied from another app/);
  await assert.rejects(openCached(counted, sealed, "apps/1/callback_secret"));
  // A failure is not remembered; a rotated secret (new sealed text) is opened afresh.
  await assert.rejects(openCached(counted, sealed, "apps/2/api_key"));
  assert.equal(decrypts, 4);
  const rotated = await box.encrypt("the-new-key", "apps/1/api_key");
  assert.equal(await openCached(counted, rotated, "apps/1/api_key"), "the-new-key");
  assert.equal(decrypts, 5);
});

Deno.test("the opened-secret cache keeps at most MAX_CACHED_SECRETS, dropping the oldest", async () => {
  const box = await createSecretBox("k".repeat(32));
  let decrypts = 0;
  const counted: SecretBox = {
    ...box,
    decrypt: (s, c) => (decrypts++, Promise.resolve(`${c}:${s}`)),
  };
  for (let i = 0; i <= MAX_CACHED_SECRETS; i++) {
    await openCached(counted, `s${i}`, "apps/1/api_key");
  }
  assert.equal(decrypts, MAX_CACHED_SECRETS + 1);
  await openCached(counted, `s${MAX_CACHED_SECRETS}`, "apps/1/api_key");
  assert.equal(decrypts, MAX_CACHED_SECRETS + 1, "the newest is kept");
  await openCached(counted, "s0", "apps/1/api_key");
  assert.equal(decrypts, MAX_CACHED_SECRETS + 2, "the oldest was dropped");
});
