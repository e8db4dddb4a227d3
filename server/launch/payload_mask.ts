/**
 * The one masking rule for launch payloads, wherever one is shown or logged (the REST launch log,
 * the admin screens): the value of every secret-looking key, at any depth, is replaced, and so
 * are the credentials of any URL in a string (`https://user:pass@host` reads `https://••••••@host`).
 */

/** Keys whose values are secret-looking (case-insensitive, anywhere in the key). */
const SECRET_KEY = /(password|secret|token|api_?key|signature|authorization)/i;

/** What a masked value reads as. */
export const MASKED_VALUE = "••••••";

/** `scheme://userinfo@` in any string value. */
const URL_CREDENTIALS = /([a-z][a-z0-9+.-]*:\/\/)[^\s/?#@]+@/gi;

/** A copy of `value` with the values of secret-looking keys replaced by MASKED_VALUE. */
export function maskLaunchPayload(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(maskLaunchPayload);
  if (value && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value).map((
        [k, v],
      ) => [k, SECRET_KEY.test(k) ? MASKED_VALUE : maskLaunchPayload(v)]),
    );
  }
  if (typeof value === "string") return value.replace(URL_CREDENTIALS, `$1${MASKED_VALUE}@`);
  return value;
}
