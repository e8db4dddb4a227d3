/**
 * decodeBase64 against a decoder that checks the text with patterns first (the codec's earlier
 * form): the same bytes or the same refusal for encodings of random bytes in both alphabets,
 * padded and not, and for random texts of Base64's characters, padding, whitespace and others.
 */
import assert from "node:assert/strict";
import { decodeBase64, encodeBase64Url } from "../../../server/crypto/base64.ts";

/** The reference: both alphabets and the padding checked by patterns, then decoded strictly. */
function patternDecode(text: string): Uint8Array | null {
  const alphabet = /^[A-Za-z0-9+/]*={0,2}$/.test(text)
    ? "base64"
    : /^[A-Za-z0-9_-]*={0,2}$/.test(text)
    ? "base64url"
    : null;
  if (alphabet === null) return null;
  const body = text.replace(/=+$/, "");
  if (body.length % 4 === 1) return null;
  const padded = body + "=".repeat((4 - (body.length % 4)) % 4);
  if (text.length !== body.length && text !== padded) return null;
  try {
    return Uint8Array.fromBase64(padded, { alphabet, lastChunkHandling: "strict" });
  } catch {
    return null;
  }
}

function same(text: string): void {
  const got = decodeBase64(text);
  const want = patternDecode(text);
  assert.equal(got?.toHex() ?? null, want?.toHex() ?? null, JSON.stringify(text));
}

function randomInt(n: number): number {
  return crypto.getRandomValues(new Uint32Array(1))[0] % n;
}

Deno.test("base64: encodings of random bytes decode to them, in both alphabets", () => {
  for (let length = 0; length < 200; length++) {
    const bytes = crypto.getRandomValues(new Uint8Array(length));
    const standard = bytes.toBase64();
    const urlSafe = encodeBase64Url(bytes);
    for (
      const text of [
        standard,
        standard.replace(/=+$/, ""),
        urlSafe,
        urlSafe + "==".slice(0, (4 - urlSafe.length % 4) % 4),
      ]
    ) {
      assert.equal(decodeBase64(text)?.toHex(), bytes.toHex(), text);
      same(text);
    }
  }
});

Deno.test("base64: random texts decode or are refused as the pattern decoder does", () => {
  const chars = "AQgw+/-_=  \t\n\r\f\u00e9.";
  for (let i = 0; i < 20_000; i++) {
    const valid = crypto.getRandomValues(new Uint8Array(randomInt(12))).toBase64().split("");
    // A valid encoding with one to three characters replaced, inserted or removed.
    for (let edits = 1 + randomInt(3); edits > 0; edits--) {
      const at = randomInt(valid.length + 1);
      const c = chars[randomInt(chars.length)];
      const kind = randomInt(3);
      if (kind === 0) valid.splice(at, 1, c);
      else if (kind === 1) valid.splice(at, 0, c);
      else valid.splice(at, 1);
    }
    same(valid.join(""));
  }
});

Deno.test("base64: whitespace anywhere is refused, whatever the length", () => {
  for (const text of ["QUJD", "QUJDRA", "QUJDRA==", "QUJDREU", "QUJDREU=", "QUJDREVG"]) {
    for (let at = 0; at <= text.length; at++) {
      for (const ws of [" ", "\t", "\n", "\r", "\f", "  ", "\n\n\n", "    "]) {
        const spaced = text.slice(0, at) + ws + text.slice(at);
        assert.equal(decodeBase64(spaced), null, JSON.stringify(spaced));
      }
    }
  }
});
