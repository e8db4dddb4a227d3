import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import { HmacSha256Key, keptHmacKeys } from "../../../server/crypto/hmac_sha256.ts";

const bytes = (n: number, b: number) => new Uint8Array(n).fill(b);
const text = (s: string) => new TextEncoder().encode(s);

// RFC 4231 §4 (test case 5 truncates its output, so it is left out).
const RFC_4231: [Uint8Array, Uint8Array, string][] = [
  [
    bytes(20, 0x0b),
    text("Hi There"),
    "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7",
  ],
  [
    text("Jefe"),
    text("what do ya want for nothing?"),
    "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843",
  ],
  [
    bytes(20, 0xaa),
    bytes(50, 0xdd),
    "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe",
  ],
  [
    Uint8Array.from({ length: 25 }, (_, i) => i + 1),
    bytes(50, 0xcd),
    "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b",
  ],
  [
    bytes(131, 0xaa),
    text("Test Using Larger Than Block-Size Key - Hash Key First"),
    "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54",
  ],
  [
    bytes(131, 0xaa),
    text(
      "This is a test using a larger than block-size key and a larger than block-size data. " +
        "The key needs to be hashed before being used by the HMAC algorithm.",
    ),
    "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2",
  ],
];

Deno.test("HmacSha256Key gives RFC 4231's HMAC-SHA-256 vectors", () => {
  for (const [key, data, expected] of RFC_4231) {
    const mac = new HmacSha256Key(key).mac(data);
    assert.equal(mac.toHex(), expected);
    // A plain Uint8Array of 32 bytes, not a Buffer.
    assert.equal(Object.getPrototypeOf(mac), Uint8Array.prototype);
    assert.equal(mac.length, 32);
  }
});

Deno.test("HmacSha256Key agrees with node:crypto's createHmac on random keys and messages", () => {
  // Keys of every length around the block size (64: padded, equal, hashed first), text with
  // characters beyond ASCII (taken as UTF-8 on both sides), and raw bytes.
  for (let n = 0; n < 300; n++) {
    const key = crypto.getRandomValues(new Uint8Array(n % 140));
    const message = crypto.getRandomValues(new Uint8Array(Math.floor(Math.random() * 2000)));
    const textMessage = `${n}.é€😀.${message.toBase64()}`;
    const mine = new HmacSha256Key(key);
    assert.equal(
      mine.mac(message).toHex(),
      createHmac("sha256", key).update(message).digest("hex"),
    );
    assert.equal(
      mine.mac(textMessage).toHex(),
      createHmac("sha256", key).update(textMessage).digest("hex"),
    );
    // A text key is its UTF-8 bytes; the same key object serves many messages.
    const textKey = `k${n}€`;
    assert.equal(
      new HmacSha256Key(textKey).mac(textMessage).toHex(),
      createHmac("sha256", textKey).update(textMessage).digest("hex"),
    );
    assert.equal(mine.mac(message).toHex(), mine.mac(message).toHex());
  }
});

Deno.test("keptHmacKeys makes each secret's key once and keeps at most its size", () => {
  const made: string[] = [];
  const keyOf = keptHmacKeys((secret) => {
    made.push(secret);
    return new HmacSha256Key(secret);
  }, 2);
  const a = keyOf("a");
  assert.equal(keyOf("a"), a);
  keyOf("b");
  assert.deepEqual(made, ["a", "b"]);
  // Full: a third secret drops the one made longest ago ("a"), so "a" is made again; "c" is kept.
  keyOf("c");
  assert.notEqual(keyOf("a"), a);
  keyOf("c");
  assert.deepEqual(made, ["a", "b", "c", "a"]);
  assert.equal(keyOf("a").mac("m").toHex(), new HmacSha256Key("a").mac("m").toHex());
});
