/**
 * The OAuth 2.0 endpoints in the OpenAPI document. They are plain Hono routes (RFC 6749 form
 * parsing and error bodies), so they are described here by hand, next to the code they describe.
 */
import {
  ErrorSchema,
  jsonResponse,
  OAuthErrorSchema,
  SERVER_ERROR,
  TOO_MANY_FAILURES,
} from "../api/openapi_shared.ts";
import { type OpenAPIHono, z } from "@hono/zod-openapi";
import { SCOPES } from "./scopes.ts";

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

/**
 * What every OAuth endpoint can answer besides its 200: RFC 6749 errors for what it refuses, the
 * service's Error for a body over the limit, too many failures (the token endpoint's failure
 * limit, per client address) and an unexpected failure.
 */
function oauthErrors(refused: string) {
  return {
    400: jsonResponse(OAuthErrorSchema, refused),
    401: jsonResponse(
      OAuthErrorSchema,
      "`invalid_client` through HTTP Basic, or with no client authentication at all",
      ["WWW-Authenticate"],
    ),
    413: jsonResponse(ErrorSchema, "The body is over 16 KiB (`body_too_large`)"),
    429: TOO_MANY_FAILURES,
    500: SERVER_ERROR,
  };
}

const REFUSED = "`invalid_request` (a missing, repeated or malformed parameter, or a body " +
  "that is not application/x-www-form-urlencoded), `invalid_client` (client_secret_post)";

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
    operationId: "issueToken",
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
      200: jsonResponse(
        z.object({
          access_token: z.string(),
          token_type: z.literal("Bearer"),
          expires_in: z.number().int().openapi({ example: 3600 }),
          scope: z.string().openapi({ example: "sessions:read sessions:write" }),
        }).openapi("TokenResponse"),
        "A bearer token (Cache-Control: no-store)",
      ),
      ...oauthErrors(
        `${REFUSED}, \`unsupported_grant_type\`, \`invalid_scope\``,
      ),
    },
  });

  registry.registerPath({
    method: "post",
    path: `${prefix}/revoke`,
    tags: ["OAuth 2.0"],
    operationId: "revokeToken",
    summary: "Revoke one of the calling client's tokens (RFC 7009)",
    security: clientAuth,
    request: form(z.object({
      token: z.string(),
      token_type_hint: z.string().optional(),
      ...clientCredentials,
    })),
    responses: {
      200: jsonResponse(
        z.object({}).strict(),
        "Revoked, or was not a live token of this client: an empty JSON object " +
          "(clients such as simple-oauth2 parse the answer as JSON)",
      ),
      ...oauthErrors(REFUSED),
    },
  });

  registry.registerPath({
    method: "post",
    path: `${prefix}/introspect`,
    tags: ["OAuth 2.0"],
    operationId: "introspectToken",
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
      200: jsonResponse(
        z.union([
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
        "The token's state",
      ),
      ...oauthErrors(REFUSED),
    },
  });
}
