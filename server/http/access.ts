/**
 * Access fails closed: what the portal's and the admin screens' login guards share. A request
 * without a valid login is refused before any handler runs, unless server/http/public_routes.ts
 * lists its route: a browser is sent to the sign-in page with a safe `next`, a JSON client gets
 * 401 `{code: "login_required", message}`.
 */
import type { Context } from "hono";
import { AppError } from "./errors.ts";

/** Where one family of pages signs in: its prefix, sign-in page and default landing page. */
export interface SignInPlace {
  /** The family's path prefix (`/portal`, `/admin`): `next` stays under it. */
  prefix: string;
  /** The sign-in page. */
  login: string;
  /** Where to land after signing in when the request names no page to come back to. */
  fallback: string;
  /** The message of the 401 JSON answer. */
  message: string;
}

/**
 * True when the caller wants JSON rather than a page: its Accept names application/json and not
 * text/html, or it is a script's fetch (`Sec-Fetch-Dest: empty`) that does not ask for HTML.
 * Browser navigations and form posts (Accept text/html) and callers that say nothing get pages.
 */
export function wantsJson(c: Context): boolean {
  const accept = (c.req.header("Accept") ?? "").toLowerCase();
  if (accept.includes("text/html")) return false;
  if (accept.includes("application/json")) return true;
  return c.req.header("Sec-Fetch-Dest") === "empty";
}

const ORIGIN = "http://next.invalid";

/**
 * `next` when it is a same-origin path under `prefix` (a single leading `/`, no `//`, no
 * backslash, no scheme, no control characters, no `..` that leaves the prefix), normalized as a
 * browser would; else `fallback`. The one check of every sign-in's `next`.
 */
export function safeNext(prefix: string, next: unknown, fallback: string): string {
  if (typeof next !== "string" || !next.startsWith("/") || next.startsWith("//")) return fallback;
  // deno-lint-ignore no-control-regex
  if (next.includes("\\") || /[\u0000-\u001f\u007f]/.test(next)) return fallback;
  let url: URL;
  try {
    url = new URL(next, ORIGIN);
  } catch {
    return fallback;
  }
  if (url.origin !== ORIGIN || url.pathname.includes("//")) return fallback;
  if (url.pathname !== prefix && !url.pathname.startsWith(`${prefix}/`)) return fallback;
  return url.pathname + url.search;
}

/** The page to come back to after signing in: a GET's own URL, else `fallback`. */
export function pageToComeBackTo(c: Context, fallback: string): string {
  if (c.req.method !== "GET" && c.req.method !== "HEAD") return fallback;
  const url = new URL(c.req.url);
  return url.pathname + url.search;
}

/**
 * The refusal of a request without a valid login: 401 JSON for a JSON client, else a 303 to the
 * sign-in page whose `next` comes back to `back` (when safe). Never cached.
 */
export function refuseSignedOut(c: Context, place: SignInPlace, back: string): Response {
  c.header("Cache-Control", "no-store");
  c.set("errorCode", "login_required"); // the request log line names the refusal
  if (wantsJson(c)) {
    return c.json(
      new AppError(401, "login_required", place.message).bodyFor(c.get("requestId")),
      401,
    );
  }
  const next = safeNext(place.prefix, back, place.fallback);
  return c.redirect(`${place.login}?next=${encodeURIComponent(next)}`, 303);
}
