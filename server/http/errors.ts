/** One error type for every expected failure, and the handler that turns errors into responses. */
import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { z } from "zod";
import { isDatabaseUnavailable } from "../../db/errors.ts";
import { log } from "../log.ts";
import { notFoundHtml, serverErrorHtml, unavailableHtml } from "./status_html.ts";
import { jsonErrorPosition } from "./json_position.ts";

/** The code whose body is exactly `{"message": "Error evaluating User"}` (spec §7). */
const SPEC_MESSAGE_ONLY = "invalid_user";

/**
 * One problem with one input field. `path` is dotted from the body's root; `code` is a stable
 * machine code (`required`, `invalid_type`, `invalid_format`, `too_big`, `too_small`,
 * `invalid_value`, `invalid`, or a domain code); AppError fills in `invalid` when none is given.
 */
export interface FieldError {
  path: string;
  code?: string;
  message: string;
}

/**
 * An expected failure: HTTP status, stable machine code, human message, optional field errors.
 * JSON bodies carry `{code, message, errors?}` (the error handler adds `requestId`); the codes are
 * stable and listed in docs/api.md#error-codes. The one exception is the spec's exact "Error
 * evaluating User" answer (code `invalid_user`), whose body is `{"message": "Error evaluating
 * User"}` alone.
 */
export class AppError extends Error {
  readonly errors?: FieldError[];
  /** Further fields of the JSON body (e.g. the `hint` of `invalid_signature`), after `errors`. */
  extra?: Record<string, unknown>;

  constructor(
    readonly status: ContentfulStatusCode,
    readonly code: string,
    message: string,
    errors?: FieldError[],
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.name = "AppError";
    this.errors = errors?.map((e) => ({
      path: e.path,
      code: e.code ?? "invalid",
      message: e.message,
    }));
  }

  /** The JSON body of the response, without the request id. */
  body(): Record<string, unknown> {
    if (this.code === SPEC_MESSAGE_ONLY) return { message: this.message };
    return {
      code: this.code,
      message: this.message,
      ...(this.errors ? { errors: this.errors } : {}),
      ...this.extra,
    };
  }

  /** The JSON body as sent: with the request's id, unless a spec fixes its shape. */
  bodyFor(requestId: string | undefined): Record<string, unknown> {
    const body = this.body();
    return this.code === SPEC_MESSAGE_ONLY || requestId === undefined
      ? body
      : { ...body, requestId };
  }
}

/**
 * An OAuth 2.0 error (RFC 6749 §5.2): rendered as `{error, error_description}` exactly, with no
 * request id (it is in the X-Request-Id header).
 */
export class OAuthError extends AppError {
  override body(): Record<string, unknown> {
    return { error: this.code, error_description: this.message };
  }

  override bodyFor(): Record<string, unknown> {
    return this.body();
  }
}

/** Seconds a client is asked to wait (`Retry-After`) before retrying after a database fault. */
export const DATABASE_RETRY_AFTER_SECONDS = 5;

/** The 503 of a database that is unreachable or did not answer in time. */
export function databaseUnavailable(): AppError {
  return new AppError(
    503,
    "database_unavailable",
    "The database is unavailable; try again in a few seconds",
    undefined,
    { "Retry-After": String(DATABASE_RETRY_AFTER_SECONDS) },
  );
}

/**
 * The AppError `err` answers as: itself, `database_unavailable` for a database fault
 * (db/errors.ts decides which), null for anything unexpected (a 500).
 */
export function asAppError(err: unknown): AppError | null {
  if (err instanceof AppError) return err;
  return isDatabaseUnavailable(err) ? databaseUnavailable() : null;
}

/** Formats a zod issue path as a dotted path (`a.b[0].c` becomes `a.b.0.c`). */
export function dottedPath(path: readonly PropertyKey[]): string {
  return path.map(String).join(".");
}

/** The stable code of a zod issue: `required` for a missing value, else zod's own issue code. */
function issueCode(issue: z.core.$ZodIssue): string {
  // zod leaves `input` out of its issues unless asked to (reportInput); the service's messages
  // say "required" exactly when the value is missing (server/zod_messages.ts).
  const missing = (issue.code === "invalid_type" || issue.code === "invalid_union") &&
    ("input" in issue ? issue.input === undefined : issue.message === "required");
  if (missing) return "required";
  if (issue.code === "custom") return "invalid";
  return issue.code;
}

/**
 * Converts zod issues to field errors, naming unknown keys one by one, and a record's refused key
 * by what its rule says (zod's own message is only "Invalid key in record").
 */
export function fieldErrors(issues: readonly z.core.$ZodIssue[], prefix = ""): FieldError[] {
  const out: FieldError[] = [];
  for (const issue of issues) {
    const base = dottedPath([...(prefix ? [prefix] : []), ...issue.path]);
    if (issue.code === "invalid_key") {
      out.push({
        path: base || "(root)",
        code: "invalid_key",
        message: `this key: ${issue.issues.map((i) => i.message).join("; ")}`,
      });
    } else if (issue.code === "unrecognized_keys") {
      for (const key of issue.keys) {
        out.push({
          path: base ? `${base}.${key}` : key,
          code: "unknown_field",
          message: "unknown field",
        });
      }
    } else {
      out.push({ path: base || "(root)", code: issueCode(issue), message: issue.message });
    }
  }
  return out;
}

/** A 400 listing every validation problem. */
export function validationError(issues: readonly z.core.$ZodIssue[], message = "Invalid request") {
  return new AppError(400, "validation_failed", message, fieldErrors(issues));
}

/** True when the client asks for HTML (a browser). */
function wantsHtml(c: Context): boolean {
  return (c.req.header("Accept") ?? "").includes("text/html");
}

/** What Hono's validator throws for a body JSON.parse refuses (it says nothing of where). */
const MALFORMED_JSON = "Malformed JSON in request body";

/**
 * Where a JSON body that a route's parser refused breaks, from its text as the input rules read it
 * (nul.ts): the message with its line and column, and the field error `invalid_json`.
 */
function malformedJsonAt(
  err: HTTPException,
  c: Context,
): { message?: string; errors?: FieldError[] } {
  const text: string | undefined = err.message === MALFORMED_JSON ? c.get("jsonBody") : undefined;
  if (text === undefined) return {};
  const { line, column } = jsonErrorPosition(text);
  return {
    message: `${MALFORMED_JSON}: it breaks at line ${line}, column ${column}`,
    errors: [{ path: "(body)", code: "invalid_json", message: `line ${line}, column ${column}` }],
  };
}

/**
 * Hono's onError: expected errors keep their status; a database fault is a 503
 * `database_unavailable` with `Retry-After` (a page for browsers); anything else is a logged 500.
 * JSON error bodies carry the request's id (the X-Request-Id header) as `requestId`, except the
 * two whose shape a spec fixes (OAuthError, `invalid_user`).
 */
export function handleError(err: Error, c: Context): Response {
  // Set by hono/request-id before any route (undefined only in an app built without it).
  const requestId: string | undefined = c.get("requestId");
  const known = asAppError(err);
  if (known) {
    for (const [name, value] of Object.entries(known.headers ?? {})) c.header(name, value);
    if (known.code === "database_unavailable") {
      log.warn("database unavailable", { requestId, error: err?.message });
      if (wantsHtml(c)) return c.html(unavailablePage(requestId ?? null), 503);
    }
    return c.json(known.bodyFor(requestId), known.status);
  }
  if (err instanceof HTTPException) {
    const [code, message] = err.status === 415
      ? ["unsupported_media_type", "Unsupported Content-Type: send application/json"]
      : ["bad_request", err.message || "Bad request"];
    return c.json(
      { code, message, ...malformedJsonAt(err, c), ...(requestId ? { requestId } : {}) },
      err.status as ContentfulStatusCode,
    );
  }
  log.error("unhandled error", { requestId, error: err?.message, stack: err?.stack });
  // A browser (it asks for HTML) gets a page, not raw JSON; every other client the JSON body.
  if (wantsHtml(c)) return c.html(serverErrorPage(requestId ?? null), 500);
  return c.json({
    code: "internal_error",
    message: "Internal server error",
    requestId: requestId ?? null,
  }, 500);
}

/** The page a browser gets for a 5xx (server/http/status_page.tsx). */
export function serverErrorPage(requestId: string | null): string {
  return serverErrorHtml(requestId);
}

/** The page a browser gets while the database is unavailable (server/http/status_page.tsx). */
export function unavailablePage(requestId: string | null): string {
  return unavailableHtml(requestId);
}

/**
 * Hono's notFound: a browser (it asks for HTML) gets the 404 page; every other client the JSON
 * `route_not_found` error.
 */
export function notFound(c: Context): Response {
  if (wantsHtml(c)) return c.html(notFoundHtml(c.req.path, c.get("requestId") ?? null), 404);
  return handleError(
    new AppError(404, "route_not_found", `No route for ${c.req.method} ${c.req.path}`),
    c,
  );
}
