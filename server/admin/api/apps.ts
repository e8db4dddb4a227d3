/** Admin API: apps (spec §2.1) with their API clients, client-secret rotation, token generator. */
import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import { generateToken } from "../../crypto/random_token.ts";
import type { Deps } from "../../deps.ts";
import type { AppEnv } from "../../http/env.ts";
import { publicOrigin } from "../../http/public_origin.ts";
import {
  emptyResponse,
  ErrorSchema,
  jsonBody,
  jsonResponse,
  validationHook,
} from "../../api/openapi_shared.ts";
import {
  allApps,
  appByName,
  changeApp,
  createApp,
  removeApp,
  rotateClientSecret,
} from "../apps.ts";
import {
  AppNameSchema,
  AppSchema,
  AppWithSecretSchema,
  CreateAppSchema,
  UpdateAppSchema,
} from "../schemas.ts";
import { adminErrors, adminTag, setLocation } from "./openapi_meta.ts";
import { OrganizationQuery } from "../../api/schemas.ts";
import { organizationIdOf } from "../organizations.ts";

const AppParam = z.object({ appName: AppNameSchema });
const tag = adminTag("apps");
const notFound = "No app has this App Name (`app_not_found`)";
const DeleteAppQuery = z.object({
  cascade: z.enum(["true", "false"]).optional().openapi({
    description: "`true` deletes the app's sessions, customers and launch log records with it",
  }),
});
const AppHasSessionsSchema = ErrorSchema.extend({
  counts: z.object({
    sessions: z.number().int(),
    customers: z.number().int(),
    launches: z.number().int(),
  }).openapi({ description: "What the app holds: a cascade deletes all of it" }),
}).openapi("AppHasSessions");

/** The /apps and /generate-token operations. */
export function appsApi(deps: Deps): OpenAPIHono<AppEnv> {
  const api = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
  // The launch URLs shown here are copied into host apps: PUBLIC_URL, never a forwarded host.
  const origin = publicOrigin(deps.config);

  api.openapi(
    createRoute({
      method: "post",
      path: "/apps",
      ...tag,
      operationId: "createApp",
      summary: "Create an app and its API client",
      request: jsonBody(CreateAppSchema),
      responses: {
        201: jsonResponse(AppWithSecretSchema, "Created; clientSecret is shown only here", [
          "Location",
        ]),
        409: jsonResponse(ErrorSchema, "App Name already used (`app_exists`)"),
        ...adminErrors({ body: "required" }),
      },
    }),
    async (c) => {
      const app = await createApp(deps, origin, c.req.valid("json"));
      setLocation(deps, c, "apps", app.appName);
      return c.json(app, 201);
    },
  );

  api.openapi(
    createRoute({
      method: "get",
      path: "/apps",
      ...tag,
      operationId: "listApps",
      summary: "List apps, by App Name",
      request: { query: z.object(OrganizationQuery) },
      responses: {
        200: jsonResponse(z.object({ items: z.array(AppSchema) }), "The apps"),
        ...adminErrors({ input: true }),
      },
    }),
    async (c) => {
      const { organization } = c.req.valid("query");
      const organizationId = organization === undefined
        ? undefined
        : await organizationIdOf(deps.sql, organization);
      return c.json({ items: await allApps(deps, origin, organizationId) }, 200);
    },
  );

  api.openapi(
    createRoute({
      method: "get",
      path: "/apps/{appName}",
      ...tag,
      operationId: "getApp",
      summary: "Read an app, with its JSON template and launch URL",
      request: { params: AppParam },
      responses: {
        200: jsonResponse(AppSchema, "The app"),
        ...adminErrors({ input: true, notFound }),
      },
    }),
    async (c) => c.json(await appByName(deps, origin, c.req.valid("param").appName), 200),
  );

  api.openapi(
    createRoute({
      method: "patch",
      path: "/apps/{appName}",
      ...tag,
      operationId: "updateApp",
      summary: "Change an app",
      request: { params: AppParam, ...jsonBody(UpdateAppSchema) },
      responses: {
        200: jsonResponse(AppSchema, "The updated app"),
        409: jsonResponse(
          ErrorSchema,
          "App Name already used (`app_exists`), or the app has sessions and cannot move to " +
            "another organization (`app_has_sessions`)",
        ),
        ...adminErrors({ input: true, body: "required", notFound }),
      },
    }),
    async (c) => {
      const { appName } = c.req.valid("param");
      return c.json(await changeApp(deps, origin, appName, c.req.valid("json")), 200);
    },
  );

  api.openapi(
    createRoute({
      method: "delete",
      path: "/apps/{appName}",
      ...tag,
      operationId: "deleteApp",
      summary: "Delete an app, its API client and its tokens",
      description: "Refused with 409 `app_has_sessions` (with the counts) while the app has " +
        "sessions or customers, unless `cascade=true`: then its sessions (with their custom " +
        "fields, devices, path runs and events), customers and launch log records are deleted " +
        "with it, in one transaction.",
      request: { params: AppParam, query: DeleteAppQuery },
      responses: {
        204: emptyResponse("Deleted"),
        409: jsonResponse(
          AppHasSessionsSchema,
          "The app has sessions or customers and `cascade=true` was not given " +
            "(`app_has_sessions`, with the counts)",
        ),
        ...adminErrors({ input: true, notFound }),
      },
    }),
    async (c) => {
      const { cascade } = c.req.valid("query");
      await removeApp(deps, c.req.valid("param").appName, { cascade: cascade === "true" });
      return c.body(null, 204);
    },
  );

  api.openapi(
    createRoute({
      method: "post",
      path: "/apps/{appName}/client-secret",
      ...tag,
      operationId: "rotateClientSecret",
      summary: "Rotate the API client secret (its live tokens are revoked)",
      request: { params: AppParam },
      responses: {
        200: jsonResponse(
          z.object({ clientId: z.string(), clientSecret: z.string() }),
          "The new secret, shown once",
        ),
        ...adminErrors({ input: true, notFound }),
      },
    }),
    async (c) => c.json(await rotateClientSecret(deps, c.req.valid("param").appName), 200),
  );

  api.openapi(
    createRoute({
      method: "get",
      path: "/generate-token",
      ...tag,
      operationId: "generateToken",
      summary: "Generate a random 32-character token for an API key or consumer secret",
      responses: {
        200: jsonResponse(z.object({ token: z.string().length(32) }), "A new token"),
        ...adminErrors(),
      },
    }),
    (c) => c.json({ token: generateToken(32) }, 200),
  );

  return api;
}
