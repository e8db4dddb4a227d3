import assert from "node:assert/strict";
import {
  PORTAL_LANGUAGES,
  portalLanguage,
  translator,
  untranslated,
} from "../../../server/portal/i18n.ts";

Deno.test("portal i18n: English, French, Spanish and German have every string", () => {
  assert.deepEqual(PORTAL_LANGUAGES.sort(), ["de", "en", "es", "fr"]);
  for (const language of PORTAL_LANGUAGES) {
    assert.deepEqual(untranslated(language), [], language);
  }
  assert.ok(untranslated("it").length > 0);
});

Deno.test("portal i18n: unknown languages fall back to English; variables fill in", () => {
  assert.equal(portalLanguage("it"), "en");
  assert.equal(portalLanguage(null), "en");
  assert.equal(portalLanguage("fr"), "fr");
  assert.equal(translator("it")("guidedPaths"), "Guided paths");
  assert.equal(
    translator("fr")("tooManyAttempts", { wait: "3 minutes" }),
    "Trop d'échecs. Réessayez dans 3 minutes.",
  );
});
