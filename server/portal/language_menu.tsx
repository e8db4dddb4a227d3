/**
 * The portal header's language menu: a plain form (no script) that posts the login's new
 * language to `{prefix}/language` with the login's CSRF token and the page to come back to.
 * Each language is named in itself, so an agent who cannot read the page still finds theirs.
 */
import { LANGUAGE_NAMES, PORTAL_LANGUAGES } from "./i18n.ts";
import type { PageContext } from "./page_shell.tsx";

/** The language menu of a portal page's header. */
export function LanguageMenu(props: { ctx: PageContext }) {
  const { t, language, prefix, agent, here } = props.ctx;
  return (
    <form method="post" action={`${prefix}/language`} class="language" data-testid="language-menu">
      <input type="hidden" name="csrf" value={agent.csrf} />
      <input type="hidden" name="back" value={here} />
      <label for="portal-language">{t("language")}</label>
      <select id="portal-language" name="language">
        {PORTAL_LANGUAGES.map((code) => (
          <option value={code} lang={code} selected={code === language}>
            {LANGUAGE_NAMES[code] ?? code}
          </option>
        ))}
      </select>
      <button type="submit" class="secondary">{t("changeLanguage")}</button>
    </form>
  );
}
