/**
 * How long someone must wait before trying again, as a page says it: whole seconds under a
 * minute, whole minutes from a minute on, rounded up (never "0 seconds"), in the page's language
 * with its own plural ("1 second", "30 secondes", "1 Minute", "15 minutos") through Intl's long
 * unit names. The number and its unit are joined by a no-break space in every language (Intl's
 * data does so for some units of some languages only), so a narrow screen never parts them. The
 * sign-in and password-reset limiters' refusals use it.
 */

/** The words for a wait of `ms` milliseconds in `language` (a BCP 47 tag: "en", "fr", …). */
export function waitText(ms: number, language = "en"): string {
  const seconds = Math.max(1, Math.ceil(ms / 1000));
  const [value, unit] = seconds < 60 ? [seconds, "second"] : [Math.ceil(seconds / 60), "minute"];
  return new Intl.NumberFormat(language, { style: "unit", unit, unitDisplay: "long" })
    .format(value).replace(/\s+/u, "\u00a0");
}
