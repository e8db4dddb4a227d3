/**
 * formValues answers what URLSearchParams does, for bodies built from the characters that
 * matter to the parser: separators, '+', escapes good and bad, UTF-8 and not, lone surrogates.
 */
import assert from "node:assert/strict";
import { formValues } from "../../../server/http/form_value.ts";

const reference = (body: string, name: string) => new URLSearchParams(body).getAll(name);

function randomInt(n: number): number {
  return crypto.getRandomValues(new Uint32Array(1))[0] % n;
}

const PIECES = [
  "signed_request",
  "signed%5Frequest",
  "signed_request ",
  "signed+request",
  "a",
  "=",
  "&",
  "&&",
  "+",
  "%",
  "%2",
  "%2B",
  "%3D",
  "%26",
  "%zz",
  "%C3%A9",
  "%C3",
  "%ED%A0%80",
  "%EF%BB%BF",
  "%00",
  "é",
  "\uD800",
  "\uDC00x",
  "😀",
  "abc.DEF-_~",
];

Deno.test("formValues: the same values as URLSearchParams for random bodies", () => {
  for (let i = 0; i < 30_000; i++) {
    let body = "";
    for (let n = randomInt(10); n > 0; n--) body += PIECES[randomInt(PIECES.length)];
    for (const name of ["signed_request", "a", "signed request", ""]) {
      assert.deepEqual(formValues(body, name), reference(body, name), JSON.stringify([body, name]));
    }
  }
});

Deno.test("formValues: a launch's body, repeated fields and bare names", () => {
  const value = "x9/+=.eyJhIjoiw6kifQ==";
  const body = new URLSearchParams({ signed_request: value }).toString();
  const values = (text: string) => formValues(text, "signed_request");
  assert.deepEqual(values(body), [value]);
  assert.deepEqual(values(`signed_request=1&other=2&signed_request=3`), ["1", "3"]);
  assert.deepEqual(values("signed_request"), [""]);
  assert.deepEqual(values("signed_request=&x=1"), [""]);
  assert.deepEqual(values("other=1"), []);
  assert.deepEqual(values(""), []);
  assert.deepEqual(values("signed_request=a%zzb"), ["a%zzb"]);
  assert.deepEqual(values("signed_request=%C3"), ["\uFFFD"]);
});
