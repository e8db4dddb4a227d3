/**
 * How long someone must wait before trying again, as a page says it: whole seconds under a
 * minute, whole minutes from a minute on, rounded up (never "0 seconds"), in the page's language
 * with its own plural ("1 second", "30 secondes", "1 Minute", "15 minutos") through Intl's long
 * unit names. The number and its unit are joined by a no-break space in every language (Intl's
 * data does so for some units of some languages only), so a narrow screen never parts them. The
 * sign-in and password-reset limiters' refusals use it.
 */

/** The whole seconds of a wait of `ms`, as a 429's Retry-After gives them: rounded up, at least 1. */
export function retryAfterSeconds(ms: number): number {
  return Math.max(1, Math.ceil(ms / 1000));
}

/**
 * The words for a wait of `ms` milliseconds in `language` (a BCP 47 tag: "en", "fr", …; one
 * Intl does not take is read as English).
 */
export function waitText(ms: number, language = "en"): string {
  const seconds = retryAfterSeconds(ms);
  const [value, unit] = seconds < 60 ? [seconds, "second"] : [Math.ceil(seconds / 60), "minute"];
  let format: Intl.NumberFormat;
  try {
    format = new Intl.NumberFormat(language, { style: "unit", unit, unitDisplay: "long" });
  } catch {
    format = new Intl.NumberFormat("en", { style: "unit", unit, unitDisplay: "long" });
  }
  return format.format(value).replace(/\s+/u, "\u00a0");
}
