/**
 * The one redaction rule for anything the service logs or traces about a request: a path segment
 * that is a secret becomes `…`. A secret segment is the one after `password-reset` (the portal's
 * and the administrators' reset links) and any segment shaped like a generated token (40 or more
 * characters of the URL-safe Base64 alphabet, as server/crypto/random_token.ts makes them), so a
 * future token in a path is covered without a new rule. Query strings are never logged.
 */

/** Path segments whose next segment is always a secret. */
const SECRET_AFTER = new Set(["password-reset"]);
const TOKEN_SHAPE = /^[A-Za-z0-9_-]{40,}$/;
/** A path that may hold a secret segment: one after a SECRET_AFTER name, or token-shaped. */
const MAY_HOLD_SECRET = new RegExp(`${[...SECRET_AFTER].join("|")}|[A-Za-z0-9_-]{40}`);

/** `path` with every secret segment replaced by `…`. */
export function redactPath(path: string): string {
  // Most paths hold none: they are answered without splitting (it runs for every request's log
  // line and, with tracing on, for each span's URL).
  if (!MAY_HOLD_SECRET.test(path)) return path;
  const parts = path.split("/");
  return parts.map((part, i) =>
    i > 0 && (SECRET_AFTER.has(parts[i - 1]) || TOKEN_SHAPE.test(part)) && part ? "…" : part
  ).join("/");
}
