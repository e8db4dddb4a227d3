/**
 * Everything under /api/v1: OAuth 2.0, the REST resources, the admin API, and the OpenAPI 3.1
 * document generated from the same zod schemas that validate the requests, with its reference
 * page.
 */
import { OpenAPIHono, z } from "@hono/zod-openapi";
import { cors } from "hono/cors";
import { adminApiRoutes } from "../admin/api/routes.ts";
import type { Deps } from "../deps.ts";
import type { AppEnv } from "../http/env.ts";
import { documentOAuth } from "../oauth/openapi.ts";
import { oauthRoutes } from "../oauth/routes.ts";
import { publicOrigin } from "../http/public_origin.ts";
import { docsPage } from "./docs_page.tsx";
import { deliveryRoutes } from "./deliveries_routes.ts";
import { launchLogRoutes } from "./launch_log_routes.ts";
import {
  errorResponses,
  htmlResponse,
  jsonResponse,
  registerHeaders,
  validationHook,
  withRequestWideAnswers,
} from "./openapi_shared.ts";
import { agentRoutes, customerRoutes } from "./people_routes.ts";
import { sessionRoutes } from "./sessions_routes.ts";
import { remoteApiRoutes } from "./remote_routes.ts";

/** The outline of an OpenAPI 3.1 document (its own schema is the OpenAPI specification's). */
const OpenApiDocumentSchema = z.looseObject({
  openapi: z.string().regex(/^3\.1\.\d+$/),
  info: z.looseObject({ title: z.string(), version: z.string() }),
  servers: z.array(z.looseObject({ url: z.string() })),
  paths: z.record(z.string(), z.looseObject({})),
  components: z.looseObject({}),
}).openapi("OpenApiDocument", {
  description: "See https://spec.openapis.org/oas/v3.1.0 for every field",
});

/** Version of the API the document describes. */
export const API_VERSION = "1.0.0";

/** The OpenAPI 3.1 document of `v1` served at `origin`. */
export function openApiDocument(v1: OpenAPIHono<AppEnv>, origin: string) {
  return withRequestWideAnswers(v1.getOpenAPI31Document({
    openapi: "3.1.0",
    info: {
      title: "Portal Launcher API",
      version: API_VERSION,
      description: "REST API v1 of Portal Launcher: bearer tokens from the client-credentials " +
        "grant, sessions, customers, agents, the launch log and the admin API. JSON bodies are " +
        "camelCase; errors are {code, message, errors?: [{path, code, message}], requestId} " +
        "(the OAuth 2.0 endpoints answer RFC 6749's {error, error_description}). Every answer " +
        "carries X-Request-Id.",
    },
    servers: [{ url: `${origin}/api/v1` }],
  }));
}

/** Builds the /api/v1 sub-app. */
export function apiV1(deps: Deps): OpenAPIHono<AppEnv> {
  const v1 = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
  registerHeaders(v1.openAPIRegistry);
  v1.route("/oauth2", oauthRoutes(deps));
  documentOAuth(v1.openAPIRegistry);
  v1.route("/sessions", sessionRoutes(deps));
  v1.route("/sessions", remoteApiRoutes(deps));
  v1.route("/customers", customerRoutes(deps));
  v1.route("/agents", agentRoutes(deps));
  v1.route("/launches", launchLogRoutes(deps));
  v1.route("/deliveries", deliveryRoutes(deps));
  v1.route("/admin", adminApiRoutes(deps));

  v1.get("/openapi.json", cors({ origin: "*" }), (c) => {
    return c.json(openApiDocument(v1, publicOrigin(deps.config)));
  });
  v1.openAPIRegistry.registerPath({
    method: "get",
    path: "/openapi.json",
    tags: ["Reference"],
    operationId: "getOpenApiDocument",
    summary: "This OpenAPI 3.1 document",
    responses: {
      200: jsonResponse(OpenApiDocumentSchema, "The document (CORS: any origin)"),
      ...errorResponses(null),
    },
  });
  v1.get("/docs", (c) => {
    return c.html(docsPage(openApiDocument(v1, publicOrigin(deps.config))));
  });
  v1.openAPIRegistry.registerPath({
    method: "get",
    path: "/docs",
    tags: ["Reference"],
    operationId: "getApiReference",
    summary: "The interactive API reference page (HTML, works offline)",
    responses: {
      200: htmlResponse("The page"),
      ...errorResponses(null),
    },
  });
  return v1;
}
