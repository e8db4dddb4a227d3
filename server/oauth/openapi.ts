/**
 * The OAuth 2.0 endpoints in the OpenAPI document. They are plain Hono routes (RFC 6749 form
 * parsing and error bodies), so they are described here by hand, next to the code they describe.
 */
import { ErrorSchema } from "../api/openapi_shared.ts";
import { type OpenAPIHono, z } from "@hono/zod-openapi";
import { SCOPES } from "./scopes.ts";

const OAuthErrorSchema = z.object({
  error: z.string().openapi({ example: "invalid_client" }),
  error_description: z.string().openapi({ example: "Client authentication failed" }),
}).openapi("OAuthError");

const clientCredentials = {
  client_id: z.string().optional().openapi({
    description: "With client_secret, when not using HTTP Basic",
    example: "app-crm-1f3c",
  }),
  client_secret: z.string().optional(),
};

function form<T extends z.ZodType>(schema: T) {
  return {
    body: {
      required: true,
      content: { "application/x-www-form-urlencoded": { schema } },
    },
  };
}

const oauthErrors = {
  400: {
    description: "invalid_request, invalid_client (client_secret_post), unsupported_grant_type, " +
      "invalid_scope",
    content: { "application/json": { schema: OAuthErrorSchema } },
  },
  401: {
    description: "invalid_client with HTTP Basic (WWW-Authenticate: Basic)",
    content: { "application/json": { schema: OAuthErrorSchema } },
  },
  413: {
    description: "Body over 16 KiB (the service's one 413 body: code body_too_large)",
    content: { "application/json": { schema: ErrorSchema } },
  },
};

const clientAuth: Record<string, string[]>[] = [{ clientBasic: [] }, {}];

/** Adds the token, revoke and introspect endpoints and the security schemes to `registry`. */
export function documentOAuth(
  registry: OpenAPIHono["openAPIRegistry"],
  prefix = "/oauth2",
): void {
  registry.registerComponent("securitySchemes", "oauth2", {
    type: "oauth2",
    description: "Bearer tokens from the client-credentials grant (RFC 6749 §4.4, RFC 6750)",
    flows: {
      clientCredentials: {
        tokenUrl: "oauth2/token",
        scopes: {
          "sessions:read": "Read sessions, customers and agents",
          "sessions:write": "Change sessions",
          admin: "Configuration (admin API) and the launch log",
        } satisfies Record<(typeof SCOPES)[number], string>,
      },
    },
  });
  registry.registerComponent("securitySchemes", "clientBasic", {
    type: "http",
    scheme: "basic",
    description: "client_id and client_secret, form-urlencoded then Base64 (RFC 6749 §2.3.1)",
  });

  registry.registerPath({
    method: "post",
    path: `${prefix}/token`,
    tags: ["OAuth 2.0"],
    summary: "Issue an access token (client_credentials)",
    security: clientAuth,
    request: form(z.object({
      grant_type: z.literal("client_credentials"),
      scope: z.string().optional().openapi({
        description: "Space-separated subset of the client's scopes (default: all of them)",
        example: "sessions:read",
      }),
      ...clientCredentials,
    })),
    responses: {
      200: {
        description: "A bearer token (Cache-Control: no-store)",
        content: {
          "application/json": {
            schema: z.object({
              access_token: z.string(),
              token_type: z.literal("Bearer"),
              expires_in: z.number().int().openapi({ example: 3600 }),
              scope: z.string().openapi({ example: "sessions:read sessions:write" }),
            }).openapi("TokenResponse"),
          },
        },
      },
      ...oauthErrors,
    },
  });

  registry.registerPath({
    method: "post",
    path: `${prefix}/revoke`,
    tags: ["OAuth 2.0"],
    summary: "Revoke one of the calling client's tokens (RFC 7009)",
    security: clientAuth,
    request: form(z.object({
      token: z.string(),
      token_type_hint: z.string().optional(),
      ...clientCredentials,
    })),
    responses: {
      200: {
        description: "Revoked, or was not a live token of this client: an empty JSON object " +
          "(clients such as simple-oauth2 parse the answer as JSON)",
        content: { "application/json": { schema: z.object({}).strict() } },
      },
      ...oauthErrors,
    },
  });

  registry.registerPath({
    method: "post",
    path: `${prefix}/introspect`,
    tags: ["OAuth 2.0"],
    summary: "Introspect a token (RFC 7662)",
    description: "A client sees its own tokens; a client allowed the admin scope sees any. " +
      'Anything else, and any token that is unknown, expired or revoked, is {"active": false}.',
    security: clientAuth,
    request: form(z.object({
      token: z.string(),
      token_type_hint: z.string().optional(),
      ...clientCredentials,
    })),
    responses: {
      200: {
        description: "The token's state",
        content: {
          "application/json": {
            schema: z.union([
              z.object({
                active: z.literal(true),
                scope: z.string(),
                client_id: z.string(),
                token_type: z.literal("Bearer"),
                exp: z.number().int(),
                iat: z.number().int(),
              }),
              z.object({ active: z.literal(false) }),
            ]).openapi("Introspection"),
          },
        },
      },
      ...oauthErrors,
    },
  });
}
