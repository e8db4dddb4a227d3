/** OAuth 2.0 endpoints: token (client_credentials), revocation, introspection, server metadata. */
import { Hono } from "hono";
import type { Deps } from "../deps.ts";
import type { AppEnv } from "../http/env.ts";
import { OAuthError } from "../http/errors.ts";
import { publicOrigin } from "../http/public_origin.ts";
import { clientAddress } from "../http/client_address.ts";
import { limitFailures } from "../http/failure_rate.ts";
import {
  authenticateClient,
  type ClientCredentials,
  readClientCredentials,
} from "./client_auth.ts";
import type { IssuedToken } from "./auth_service.ts";
import { readOAuthForm } from "./form.ts";
import { isScope, SCOPES } from "./scopes.ts";

const unique = (scopes: string[] | null) => scopes && [...new Set(scopes)];

/** Authenticates the client, checks the scopes it asks for, then issues its token. */
async function issueStepByStep(
  deps: Deps,
  creds: ClientCredentials,
  asked: string[] | null,
): Promise<IssuedToken> {
  const client = await authenticateClient(deps.sql, creds);
  let scopes = client.scopes;
  if (asked !== null) {
    const bad = asked.filter((s) => !isScope(s) || !client.scopes.includes(s));
    if (asked.length === 0 || bad.length) {
      throw new OAuthError(
        400,
        "invalid_scope",
        asked.length === 0
          ? "scope is empty; omit it to get every scope the client may use"
          : `Scope not allowed for this client: ${bad.join(" ")} (allowed: ${
            client.scopes.join(" ")
          })`,
      );
    }
    scopes = unique(asked)!;
  }
  const issued = await deps.auth.issue(client.id, scopes);
  deps.auth.rememberSalt(client.clientId, client.secretHash);
  return issued;
}

/** Routes under /api/v1/oauth2. */
export function oauthRoutes(deps: Deps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();

  // Each endpoint authenticates the client with its secret, so each is a way to guess one: their
  // failures (4xx, never 5xx) count together per client address, and too many answer 429 with
  // Retry-After (failure_rate.ts).
  const limited = limitFailures(
    () => deps.failures.token,
    (c) => clientAddress(deps, c),
    "OAuth 2.0 requests",
  );
  for (const path of ["/token", "/revoke", "/introspect"]) app.use(path, limited);

  app.post("/token", async (c) => {
    const form = await readOAuthForm(c);
    const creds = readClientCredentials(c.req.header("Authorization"), form);
    if (!form.grant_type) {
      throw new OAuthError(400, "invalid_request", "grant_type is required (client_credentials)");
    }
    if (form.grant_type !== "client_credentials") {
      throw new OAuthError(
        400,
        "unsupported_grant_type",
        `grant_type ${form.grant_type} is not supported; use client_credentials`,
      );
    }
    const asked = form.scope === undefined ? null : form.scope.split(" ").filter(Boolean);
    // A client seen before gets its token in one statement; anything else (first request, wrong
    // secret, a scope it may not use) goes step by step below, which says what is wrong.
    const oneStep = asked === null || (asked.length > 0 && asked.every(isScope));
    const issued = (oneStep &&
      await deps.auth.issueForSecret(creds.clientId, creds.clientSecret, unique(asked))) ||
      await issueStepByStep(deps, creds, asked);
    c.header("Cache-Control", "no-store");
    c.header("Pragma", "no-cache");
    return c.json({
      access_token: issued.accessToken,
      token_type: "Bearer",
      expires_in: issued.expiresIn,
      scope: issued.scopes.join(" "),
    });
  });

  app.post("/revoke", async (c) => {
    const form = await readOAuthForm(c);
    const creds = readClientCredentials(c.req.header("Authorization"), form);
    const client = await authenticateClient(deps.sql, creds);
    if (!form.token) throw new OAuthError(400, "invalid_request", "token is required");
    await deps.auth.revoke(form.token, client.id);
    c.header("Cache-Control", "no-store");
    // RFC 7009 asks for no body; an empty JSON object is one that OAuth client libraries which
    // parse every answer as JSON (simple-oauth2's revoke()) accept too.
    return c.json({}, 200);
  });

  app.post("/introspect", async (c) => {
    const form = await readOAuthForm(c);
    const creds = readClientCredentials(c.req.header("Authorization"), form);
    const client = await authenticateClient(deps.sql, creds);
    if (!form.token) throw new OAuthError(400, "invalid_request", "token is required");
    c.header("Cache-Control", "no-store");
    const info = await deps.auth.introspect(form.token, client);
    if (!info) return c.json({ active: false });
    return c.json({
      active: true,
      scope: info.scopes.join(" "),
      client_id: info.clientId,
      token_type: "Bearer",
      exp: Math.floor(info.expiresAt.getTime() / 1000),
      iat: Math.floor(info.issuedAt.getTime() / 1000),
    });
  });

  return app;
}

/** RFC 8414 authorization server metadata. */
export function oauthMetadata(deps: Deps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  // Built from PUBLIC_URL alone, never from a forwarded host: a client configures itself from
  // this document, and a cache in front may keep it. Nothing the request sends changes the body,
  // so caches may share it for five minutes; Vary names only Accept-Encoding, for the caches and
  // proxies in front that compress.
  const origin = publicOrigin(deps.config);
  app.get("/", (c) => {
    c.header("Cache-Control", "public, max-age=300");
    c.header("Vary", "Accept-Encoding");
    return c.json({
      issuer: origin,
      token_endpoint: `${origin}/api/v1/oauth2/token`,
      revocation_endpoint: `${origin}/api/v1/oauth2/revoke`,
      introspection_endpoint: `${origin}/api/v1/oauth2/introspect`,
      grant_types_supported: ["client_credentials"],
      response_types_supported: [],
      token_endpoint_auth_methods_supported: ["client_secret_basic", "client_secret_post"],
      revocation_endpoint_auth_methods_supported: ["client_secret_basic", "client_secret_post"],
      introspection_endpoint_auth_methods_supported: ["client_secret_basic", "client_secret_post"],
      scopes_supported: [...SCOPES],
    });
  });
  return app;
}
