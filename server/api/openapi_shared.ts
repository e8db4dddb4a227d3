/** Pieces every documented route of /api/v1 shares: the error body, responses, security. */
import { z } from "@hono/zod-openapi";
import type { Hook } from "@hono/zod-openapi";
import type { AppEnv } from "../http/env.ts";
import { validationError } from "../http/errors.ts";
import type { Scope } from "../oauth/scopes.ts";

/** The error body every 4xx of the API uses. */
export const ErrorSchema = z.object({
  code: z.string().openapi({
    example: "session_not_found",
    description: "Stable machine-readable code (docs/api.md#error-codes)",
  }),
  message: z.string().openapi({ example: "Session 42 not found" }),
  errors: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
}).openapi("Error");

/** A JSON response. */
export function jsonResponse<T extends z.ZodType>(schema: T, description: string) {
  return { description, content: { "application/json": { schema } } };
}

/** A required JSON request body. */
export function jsonBody<T extends z.ZodType>(schema: T) {
  return { body: { required: true, content: { "application/json": { schema } } } };
}

/** 400/401/403 of a bearer-protected operation needing `scope`, plus 404 when it has one. */
export function errorResponses(scope: Scope, notFound = true) {
  return {
    400: jsonResponse(ErrorSchema, "Invalid input: `errors` names each field"),
    401: jsonResponse(ErrorSchema, "No bearer token, or an invalid, expired or revoked one"),
    403: jsonResponse(ErrorSchema, `The token lacks the scope ${scope}`),
    ...(notFound ? { 404: jsonResponse(ErrorSchema, "Not found") } : {}),
  };
}

/** The OAuth 2.0 security requirement of an operation needing `scope`. */
export function security(scope: Scope) {
  return [{ oauth2: [scope] }];
}

/** Validation hook of every OpenAPIHono: a failed parse is a 400 naming each field. */
export const validationHook: Hook<unknown, AppEnv, string, unknown> = (result) => {
  if (!result.success) throw validationError(result.error.issues);
};
