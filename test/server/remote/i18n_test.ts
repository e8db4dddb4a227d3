/**
 * The screen-sharing pages' language (server/remote/remote_i18n.ts): the first shipped language
 * of the preferences, else English, whatever a header names: an object's inherited keys
 * (`constructor`, `__proto__`) are no language.
 */
import assert from "node:assert/strict";
import { remoteLanguage, remoteWords } from "../../../server/remote/remote_i18n.ts";

Deno.test("remoteLanguage: shipped languages by preference, English otherwise", () => {
  assert.equal(remoteLanguage("de-DE,de;q=0.9,en;q=0.8"), "de");
  assert.equal(remoteLanguage("pt-BR, fr;q=0.5"), "fr");
  assert.equal(remoteLanguage(null, "es"), "es");
  assert.equal(remoteLanguage("", undefined), "en");
  for (const header of ["constructor", "__proto__", "toString", "hasOwnProperty, valueOf"]) {
    const language = remoteLanguage(header);
    assert.equal(language, "en", header);
  }
  // Asked for by name, an inherited key gets the English words too.
  const english = remoteWords("en");
  for (const name of ["constructor", "__proto__", "toString"]) {
    assert.equal(remoteWords(name)("title"), english("title"), name);
  }
});
