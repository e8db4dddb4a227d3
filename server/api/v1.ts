/**
 * Everything under /api/v1: OAuth 2.0, the REST resources, the admin API, and the OpenAPI 3.1
 * document generated from the same zod schemas that validate the requests, with its reference
 * page.
 */
import { OpenAPIHono, z } from "@hono/zod-openapi";
import { cors } from "hono/cors";
import type { Context } from "hono";
import { adminApiRoutes } from "../admin/api/routes.ts";
import type { Deps } from "../deps.ts";
import type { AppEnv } from "../http/env.ts";
import { documentOAuth } from "../oauth/openapi.ts";
import { oauthRoutes } from "../oauth/routes.ts";
import { publicOrigin } from "../http/public_origin.ts";
import { docsPage } from "./docs_page.tsx";
import { bodyHash, notModified } from "./etag.ts";
import { deliveryRoutes } from "./deliveries_routes.ts";
import { launchLogRoutes } from "./launch_log_routes.ts";
import {
  emptyResponse,
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
import { ConditionalHeaders } from "./schemas.ts";

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

  // The document and the page are built once, at their first request (every route is registered
  // by then, and none changes while the process runs): building them takes tens of milliseconds
  // of the event loop, and both routes are public. Clients revalidate with the ETag.
  type Built = Record<"json" | "html", { text: string; tag: string }>;
  let built: Built | undefined;
  const reference = (): Built => {
    if (!built) {
      const doc = openApiDocument(v1, publicOrigin(deps.config));
      const json = JSON.stringify(doc);
      const html = docsPage(doc);
      built = {
        json: { text: json, tag: `"${bodyHash(json)}"` },
        html: { text: html, tag: `"${bodyHash(html)}"` },
      };
    }
    return built;
  };
  const answerReference = (c: Context<AppEnv>, type: "json" | "html") => {
    const { text, tag } = reference()[type];
    c.header("ETag", tag);
    // Like every page of the service, the HTML page is not kept; the document may be, revalidated.
    c.header("Cache-Control", type === "json" ? "no-cache" : "no-store");
    if (notModified(c, tag)) return c.body(null, 304);
    return type === "json"
      ? c.body(text, 200, { "Content-Type": "application/json" })
      : c.html(text);
  };
  v1.get("/openapi.json", cors({ origin: "*" }), (c) => answerReference(c, "json"));
  v1.openAPIRegistry.registerPath({
    method: "get",
    path: "/openapi.json",
    tags: ["Reference"],
    operationId: "getOpenApiDocument",
    summary: "This OpenAPI 3.1 document",
    description: "Answers an ETag; send it back in If-None-Match to get 304 when unchanged.",
    request: { headers: ConditionalHeaders },
    responses: {
      200: jsonResponse(OpenApiDocumentSchema, "The document (CORS: any origin)", ["ETag"]),
      304: emptyResponse("Not modified (If-None-Match matched the ETag)", ["ETag"]),
      ...errorResponses(null),
    },
  });
  v1.get("/docs", (c) => answerReference(c, "html"));
  v1.openAPIRegistry.registerPath({
    method: "get",
    path: "/docs",
    tags: ["Reference"],
    operationId: "getApiReference",
    summary: "The interactive API reference page (HTML, works offline)",
    description: "Answers an ETag; send it back in If-None-Match to get 304 when unchanged.",
    request: { headers: ConditionalHeaders },
    responses: {
      200: htmlResponse("The page", ["ETag"]),
      304: emptyResponse("Not modified (If-None-Match matched the ETag)", ["ETag"]),
      ...errorResponses(null),
    },
  });
  return v1;
}
