/** One error type for every expected failure, and the handler that turns errors into responses. */
import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { z } from "zod";
import { log } from "../log.ts";

/** One problem with one input field. `path` is dotted from the body's root. */
export interface FieldError {
  path: string;
  message: string;
}

/** An expected failure: HTTP status, stable machine code, human message, optional field errors. */
export class AppError extends Error {
  constructor(
    readonly status: ContentfulStatusCode,
    readonly code: string,
    message: string,
    readonly errors?: FieldError[],
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.name = "AppError";
  }

  /** The JSON body of the response. */
  body(): Record<string, unknown> {
    return this.errors ? { message: this.message, errors: this.errors } : { message: this.message };
  }
}

/** An OAuth 2.0 error (RFC 6749 §5.2): rendered as `{error, error_description}`. */
export class OAuthError extends AppError {
  override body(): Record<string, unknown> {
    return { error: this.code, error_description: this.message };
  }
}

/** Formats a zod issue path as a dotted path (`a.b[0].c` becomes `a.b.0.c`). */
export function dottedPath(path: readonly PropertyKey[]): string {
  return path.map(String).join(".");
}

/** Converts zod issues to field errors, naming unknown keys one by one. */
export function fieldErrors(issues: readonly z.core.$ZodIssue[], prefix = ""): FieldError[] {
  const out: FieldError[] = [];
  for (const issue of issues) {
    const base = dottedPath([...(prefix ? [prefix] : []), ...issue.path]);
    if (issue.code === "unrecognized_keys") {
      for (const key of issue.keys) {
        out.push({ path: base ? `${base}.${key}` : key, message: "unknown field" });
      }
    } else {
      out.push({ path: base || "(root)", message: issue.message });
    }
  }
  return out;
}

/** A 400 listing every validation problem. */
export function validationError(issues: readonly z.core.$ZodIssue[], message = "Invalid request") {
  return new AppError(400, "validation_failed", message, fieldErrors(issues));
}

/** Hono's onError: expected errors keep their status; anything else is a logged 500. */
export function handleError(err: Error, c: Context): Response {
  if (err instanceof AppError) {
    for (const [name, value] of Object.entries(err.headers ?? {})) c.header(name, value);
    return c.json(err.body(), err.status);
  }
  if (err instanceof HTTPException) {
    const message = err.status === 415
      ? "Unsupported Content-Type: send application/json"
      : err.status === 413
      ? "Request body too large"
      : err.message || "Bad request";
    return c.json({ message }, err.status as ContentfulStatusCode);
  }
  log.error("unhandled error", {
    requestId: c.get("requestId"),
    error: err?.message,
    stack: err?.stack,
  });
  return c.json(
    { message: "Internal server error", requestId: c.get("requestId") ?? null },
    500,
  );
}
