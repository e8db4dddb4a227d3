/**
 * Pieces every documented operation of /api/v1 shares: the error bodies, the response headers,
 * the responses every operation can answer (one set, chosen by what the operation takes), the
 * security requirement and the validation hook.
 */
import { z } from "@hono/zod-openapi";
import type { Hook, OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../http/env.ts";
import { validationError } from "../http/errors.ts";
import type { Scope } from "../oauth/scopes.ts";

/** One problem with one input field. */
export const FieldErrorSchema = z.object({
  path: z.string().openapi({
    description: "The field, dotted from the input's root (`(root)`: the input as a whole)",
    example: "customFields.color",
  }),
  code: z.string().openapi({
    description: "required, invalid_type, invalid_format, invalid_value, too_big, too_small, " +
      "unknown_field, invalid, or a domain code",
    example: "invalid_type",
  }),
  message: z.string().openapi({ example: "expected string" }),
}).openapi("FieldError");

/** The error body of every failure of the API except the OAuth 2.0 endpoints' own. */
export const ErrorSchema = z.object({
  code: z.string().openapi({
    example: "session_not_found",
    description: "Stable machine-readable code (docs/api.md#error-codes)",
  }),
  message: z.string().openapi({ example: "Session 42 not found" }),
  errors: z.array(FieldErrorSchema).optional().openapi({
    description: "Invalid input: every refused field",
  }),
  requestId: z.string().openapi({
    description: "This request's X-Request-Id: quote it when asking about the failure",
    example: "6f1c9d3e-0b8a-4c55-9a1e-2f7d8b4c1a90",
  }),
}).openapi("Error");

/** An OAuth 2.0 error (RFC 6749 §5.2): the token, revocation and introspection endpoints. */
export const OAuthErrorSchema = z.object({
  error: z.string().openapi({ example: "invalid_client" }),
  error_description: z.string().openapi({ example: "Client authentication failed" }),
}).openapi("OAuthError");

/** The response headers the document names, as components/headers. */
const HEADERS = {
  "X-Request-Id": {
    description: "The request's id: the caller's X-Request-Id when it is 1-128 of " +
      "[A-Za-z0-9_=-], else a new UUID. Error bodies repeat it as requestId",
    required: true,
    schema: { type: "string" as const, example: "6f1c9d3e-0b8a-4c55-9a1e-2f7d8b4c1a90" },
  },
  ETag: {
    description: "A strong tag of the body: send it in If-None-Match to get 304 while unchanged",
    required: true,
    schema: { type: "string" as const, pattern: '^"[0-9a-f]{16}"$', example: '"8f14e45fceea167a"' },
  },
  "WWW-Authenticate": {
    description: 'The challenge (RFC 6750 §3: Bearer realm="api" with error and scope; ' +
      "RFC 6749 §5.2: Basic for client authentication)",
    required: true,
    schema: { type: "string" as const, example: 'Bearer realm="api", error="invalid_token"' },
  },
  "Retry-After": {
    description: "Seconds until the address may try again",
    required: true,
    schema: { type: "string" as const, pattern: "^[0-9]+$", example: "42" },
  },
  Location: {
    description: "The URL of the created resource",
    required: true,
    schema: { type: "string" as const, format: "uri" },
  },
};

/** A response header by name: a reference to components/headers. */
export type HeaderName = keyof typeof HEADERS;

/** Registers the response headers in `registry` (once, on the document's root registry). */
export function registerHeaders(registry: OpenAPIHono["openAPIRegistry"]): void {
  for (const [name, header] of Object.entries(HEADERS)) {
    registry.registerComponent("headers", name, header);
  }
}

/** The headers object of a response carrying X-Request-Id and `names`. */
function headers(names: HeaderName[]) {
  const out: Record<string, { $ref: string }> = {};
  for (const name of ["X-Request-Id", ...names]) {
    out[name] = { $ref: `#/components/headers/${name}` };
  }
  return out;
}

/** A JSON response (with X-Request-Id and `headerNames`). */
export function jsonResponse<T extends z.ZodType>(
  schema: T,
  description: string,
  headerNames: HeaderName[] = [],
) {
  return {
    description,
    headers: headers(headerNames),
    content: { "application/json": { schema } },
  };
}

/** An HTML page (with X-Request-Id and `headerNames`). */
export function htmlResponse(description: string, headerNames: HeaderName[] = []) {
  return {
    description,
    headers: headers(headerNames),
    content: { "text/html": { schema: z.string() } },
  };
}

/** A response without a body (with X-Request-Id and `headerNames`). */
export function emptyResponse(description: string, headerNames: HeaderName[] = []) {
  return { description, headers: headers(headerNames) };
}

/** A required JSON request body. */
export function jsonBody<T extends z.ZodType>(schema: T) {
  return { body: { required: true, content: { "application/json": { schema } } } };
}

/** What an operation takes, which decides the shared responses it can answer. */
export interface Takes {
  /** Path or query parameters (400 when invalid). */
  input?: boolean;
  /** A JSON body: 400 when invalid, 413 over the limit, 415 when sent as something else. */
  body?: "required" | "optional";
  /** What the 404 means, when the operation can answer one. */
  notFound?: string;
}

type ErrorResponse = ReturnType<typeof jsonResponse<typeof ErrorSchema>>;

/** The shared responses of an operation. */
export interface ErrorResponses {
  400?: ErrorResponse;
  401?: ErrorResponse;
  403?: ErrorResponse;
  404?: ErrorResponse;
  413?: ErrorResponse;
  415?: ErrorResponse;
  429?: ErrorResponse;
  500: {
    description: string;
    headers: ReturnType<typeof headers>;
    content: {
      "application/json": { schema: typeof ErrorSchema };
      "text/html": { schema: z.ZodString };
    };
  };
}

/** The 500 every operation can answer. */
export const SERVER_ERROR: ErrorResponses[500] = {
  description: "An unexpected failure (`internal_error`; details in the log under requestId). " +
    "A client asking for text/html gets a page with the request id instead",
  headers: headers([]),
  content: {
    "application/json": { schema: ErrorSchema },
    "text/html": { schema: z.string() },
  },
};

/** The 429 of an operation under a failure limit (the OAuth endpoints'). */
export const TOO_MANY_FAILURES: ErrorResponse = jsonResponse(
  ErrorSchema,
  "Too many failed requests from this address (`too_many_failures`)",
  ["Retry-After"],
);

/**
 * The shared responses of an operation needing a bearer token with `scope` (null: none) that
 * takes what `takes` says: 400, 401 (WWW-Authenticate), 403 (WWW-Authenticate), 404, 413 and 415
 * where they apply, and 500 always.
 */
export function errorResponses(scope: Scope | null, takes: Takes = {}): ErrorResponses {
  const out: ErrorResponses = { 500: SERVER_ERROR };
  const invalid: string[] = [];
  if (takes.input || takes.body) {
    invalid.push("invalid input: `errors` names each field (`validation_failed`)");
  }
  invalid.push("U+0000 in any input (`invalid_request`, `errors[].code` `nul_character`)");
  if (takes.body) invalid.push("a body that is not JSON (`bad_request`)");
  if (scope) {
    invalid.push("a malformed Authorization header (`invalid_request`)");
    out[401] = jsonResponse(
      ErrorSchema,
      "No bearer token (`unauthorized`), or an invalid, expired or revoked one (`invalid_token`)",
      ["WWW-Authenticate"],
    );
    out[403] = jsonResponse(
      ErrorSchema,
      `The token lacks the scope ${scope} (\`insufficient_scope\`)`,
      ["WWW-Authenticate"],
    );
  }
  if (invalid.length) {
    const text = invalid.join("; ");
    out[400] = jsonResponse(ErrorSchema, text[0].toUpperCase() + text.slice(1));
  }
  if (takes.notFound) out[404] = jsonResponse(ErrorSchema, takes.notFound);
  if (takes.body) {
    out[413] = jsonResponse(ErrorSchema, "The body is over the limit (`body_too_large`)");
    out[415] = jsonResponse(
      ErrorSchema,
      "A body whose Content-Type is not application/json (`unsupported_media_type`)",
    );
  }
  return out;
}

/** An Error response as the generated document writes it (plain JSON, by reference). */
function errorAnswer(description: string) {
  return {
    description,
    headers: { "X-Request-Id": { $ref: "#/components/headers/X-Request-Id" } },
    content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } },
  };
}

/**
 * `doc` (a generated OpenAPI document) with the 413 of the body limit every request goes through
 * before its route (server/http/body_limit.ts) on every operation that is not a GET: a body sent
 * to any of them is measured, whether the operation reads one or not. Operations that declare
 * 413 keep their own answer. (The 400 of U+0000 is in errorResponses: every operation has it.)
 */
export function withRequestWideAnswers<T extends { paths?: Record<string, unknown> }>(doc: T): T {
  for (const item of Object.values(doc.paths ?? {}) as Record<string, unknown>[]) {
    for (const [method, op] of Object.entries(item)) {
      if (!["get", "post", "put", "patch", "delete"].includes(method)) continue;
      const responses = (op as { responses: Record<string, unknown> }).responses;
      if (method !== "get") {
        responses["413"] ??= errorAnswer(
          "A body over this route's limit (`body_too_large`; docs/api.md#input-rules-every-" +
            "route-shares)",
        );
      }
    }
  }
  return doc;
}

/** The OAuth 2.0 security requirement of an operation needing `scope`. */
export function security(scope: Scope) {
  return [{ oauth2: [scope] }];
}

/** Validation hook of every OpenAPIHono: a failed parse is a 400 naming each field. */
export const validationHook: Hook<unknown, AppEnv, string, unknown> = (result, c) => {
  if (result.success) return;
  let issues = result.error.issues;
  if (result.target === "query") {
    // A repeated parameter reaches its schema as an array ("expected a whole number"): say so.
    const given = c.req.queries();
    issues = issues.map((issue) => {
      const name = String(issue.path[0] ?? "");
      const times = Object.hasOwn(given, name) ? given[name].length : 0;
      return times > 1 ? { ...issue, message: `given ${times} times: send ${name} once` } : issue;
    });
  }
  throw validationError(issues);
};
