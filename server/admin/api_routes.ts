/** The admin JSON API under /api/v1/admin (Bearer token with scope `admin`). */
import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import { limitBody } from "../http/body_limit.ts";
import { IdParam } from "../api/schemas.ts";
import { generateToken } from "../crypto/random_token.ts";

import type { Deps } from "../deps.ts";
import type { AppEnv } from "../http/env.ts";
import {
  errorResponses as adminErrors,
  ErrorSchema,
  jsonBody,
  jsonResponse,
  security as oauthSecurity,
  validationHook,
} from "../api/openapi_shared.ts";
import { requireScope } from "../oauth/bearer.ts";
import { setPassword } from "./users.ts";
import { publicOrigin } from "../http/public_origin.ts";
import {
  createAppConfig,
  deleteAppConfig,
  getAppConfig,
  listAppConfigs,
  rotateApiKey,
  rotateClientSecret,
  updateAppConfig,
} from "./apps.ts";
import {
  addCategory,
  addPath,
  categories,
  changePath,
  pathByUid,
  paths,
  removeCategory,
  removePath,
  renameCategoryByUid,
} from "./guided_paths.ts";
import {
  AgentPasswordSchema,
  AppNameSchema,
  AppSchema,
  AppWithSecretSchema,
  CreateAppSchema,
  CreateCategorySchema,
  CreateCustomFieldSchema,
  CreatePathSchema,
  CustomFieldNameSchema,
  FieldSettingsSchema,
  UpdateAppSchema,
  UpdateCategorySchema,
  UpdatePathSchema,
  UuidSchema,
} from "./schemas.ts";
import {
  addCustomField,
  customFields,
  readFieldSettings,
  removeCustomField,
  writeFieldSettings,
} from "./settings.ts";

/** Largest accepted admin API body, in KiB. */
export const ADMIN_BODY_LIMIT_KIB = 256;

const errorResponses = adminErrors("admin");
const security = oauthSecurity("admin");
const json = jsonResponse;
const body = jsonBody;

const AppParam = z.object({ appName: AppNameSchema });
const UidParam = z.object({ uid: UuidSchema });
const NameParam = z.object({ name: CustomFieldNameSchema });

/** Builds the admin API sub-app. */
export function adminApiRoutes(deps: Deps): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
  app.use("*", requireScope(deps.auth, "admin"));
  app.use("*", limitBody(ADMIN_BODY_LIMIT_KIB));
  app.use("*", async (c, next) => {
    await next();
    c.header("Cache-Control", "no-store");
  });

  const tag = (t: string) => ({ tags: [`Admin: ${t}`], security });

  app.openapi(
    createRoute({
      method: "post",
      path: "/apps",
      ...tag("apps"),
      summary: "Create an authentication configuration and its API client",
      request: body(CreateAppSchema),
      responses: {
        201: json(AppWithSecretSchema, "Created; clientSecret is shown only here"),
        409: json(ErrorSchema, "App Name already used"),
        ...errorResponses,
      },
    }),
    async (c) => {
      const created = await createAppConfig(
        deps,
        publicOrigin(deps.config, c),
        c.req.valid("json"),
      );
      return c.json(created, 201);
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/apps",
      ...tag("apps"),
      summary: "List authentication configurations",
      responses: { 200: json(z.object({ items: z.array(AppSchema) }), "The configurations") },
    }),
    async (c) => c.json({ items: await listAppConfigs(deps, publicOrigin(deps.config, c)) }, 200),
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/apps/{appName}",
      ...tag("apps"),
      summary: "Read a configuration, with its JSON template and launch URL",
      request: { params: AppParam },
      responses: { 200: json(AppSchema, "The configuration"), ...errorResponses },
    }),
    async (c) => {
      const { appName } = c.req.valid("param");
      return c.json(await getAppConfig(deps, publicOrigin(deps.config, c), appName), 200);
    },
  );

  app.openapi(
    createRoute({
      method: "patch",
      path: "/apps/{appName}",
      ...tag("apps"),
      summary: "Change a configuration",
      request: { params: AppParam, ...body(UpdateAppSchema) },
      responses: {
        200: json(AppSchema, "The updated configuration"),
        409: json(ErrorSchema, "App Name already used"),
        ...errorResponses,
      },
    }),
    async (c) => {
      const { appName } = c.req.valid("param");
      const origin = publicOrigin(deps.config, c);
      return c.json(await updateAppConfig(deps, origin, appName, c.req.valid("json")), 200);
    },
  );

  app.openapi(
    createRoute({
      method: "delete",
      path: "/apps/{appName}",
      ...tag("apps"),
      summary: "Delete a configuration, its API client and its tokens",
      request: { params: AppParam },
      responses: { 204: { description: "Deleted" }, ...errorResponses },
    }),
    async (c) => {
      await deleteAppConfig(deps, c.req.valid("param").appName);
      return c.body(null, 204);
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/apps/{appName}/api-key",
      ...tag("apps"),
      summary: "Rotate the API key (signed_request apps)",
      request: { params: AppParam },
      responses: {
        200: json(z.object({ apiKey: z.string() }), "The new API key"),
        409: json(ErrorSchema, "The app signs with its consumer secret"),
        ...errorResponses,
      },
    }),
    async (c) => c.json({ apiKey: await rotateApiKey(deps, c.req.valid("param").appName) }, 200),
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/apps/{appName}/client-secret",
      ...tag("apps"),
      summary: "Rotate the API client secret (its live tokens are revoked)",
      request: { params: AppParam },
      responses: {
        200: json(
          z.object({ clientId: z.string(), clientSecret: z.string() }),
          "The new secret, shown once",
        ),
        ...errorResponses,
      },
    }),
    async (c) => c.json(await rotateClientSecret(deps, c.req.valid("param").appName), 200),
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/generate-token",
      ...tag("apps"),
      summary: "Generate a random 32-character token for an API key or consumer secret",
      responses: { 200: json(z.object({ token: z.string().length(32) }), "A new token") },
    }),
    (c) => c.json({ token: generateToken(32) }, 200),
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/field-settings",
      ...tag("settings"),
      summary: "Read the field settings (Session Data and Consumer Data)",
      responses: { 200: json(FieldSettingsSchema, "The field settings") },
    }),
    async (c) => c.json(await readFieldSettings(deps), 200),
  );

  app.openapi(
    createRoute({
      method: "put",
      path: "/field-settings",
      ...tag("settings"),
      summary: "Replace the field settings",
      request: body(FieldSettingsSchema),
      responses: { 200: json(FieldSettingsSchema, "The field settings"), ...errorResponses },
    }),
    async (c) => c.json(await writeFieldSettings(deps, c.req.valid("json")), 200),
  );

  const CustomField = z.object({ name: z.string(), label: z.string(), createdAt: z.string() })
    .openapi("CustomField");

  app.openapi(
    createRoute({
      method: "get",
      path: "/custom-fields",
      ...tag("settings"),
      summary: "List custom session fields",
      responses: { 200: json(z.object({ items: z.array(CustomField) }), "The custom fields") },
    }),
    async (c) => c.json({ items: await customFields(deps) }, 200),
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/custom-fields",
      ...tag("settings"),
      summary: "Add a custom session field",
      request: body(CreateCustomFieldSchema),
      responses: {
        201: json(CustomField, "Created"),
        409: json(ErrorSchema, "Exists"),
        ...errorResponses,
      },
    }),
    async (c) => c.json(await addCustomField(deps, c.req.valid("json")), 201),
  );

  app.openapi(
    createRoute({
      method: "delete",
      path: "/custom-fields/{name}",
      ...tag("settings"),
      summary: "Remove a custom session field",
      request: { params: NameParam },
      responses: { 204: { description: "Deleted" }, ...errorResponses },
    }),
    async (c) => {
      await removeCustomField(deps, c.req.valid("param").name);
      return c.body(null, 204);
    },
  );

  const Category = z.object({
    uid: z.string(),
    name: z.string(),
    createdAt: z.string(),
    updatedAt: z.string(),
  }).openapi("PathCategory");

  app.openapi(
    createRoute({
      method: "get",
      path: "/path-categories",
      ...tag("guided paths"),
      summary: "List guided-path categories",
      responses: { 200: json(z.object({ items: z.array(Category) }), "The categories") },
    }),
    async (c) => c.json({ items: await categories(deps) }, 200),
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/path-categories",
      ...tag("guided paths"),
      summary: "Create a category (uid generated when omitted)",
      request: body(CreateCategorySchema),
      responses: {
        201: json(Category, "Created"),
        409: json(ErrorSchema, "uid used"),
        ...errorResponses,
      },
    }),
    async (c) => c.json(await addCategory(deps, c.req.valid("json")), 201),
  );

  app.openapi(
    createRoute({
      method: "patch",
      path: "/path-categories/{uid}",
      ...tag("guided paths"),
      summary: "Rename a category",
      request: { params: UidParam, ...body(UpdateCategorySchema) },
      responses: { 200: json(Category, "Renamed"), ...errorResponses },
    }),
    async (c) => {
      const { uid } = c.req.valid("param");
      return c.json(await renameCategoryByUid(deps, uid, c.req.valid("json").name), 200);
    },
  );

  app.openapi(
    createRoute({
      method: "delete",
      path: "/path-categories/{uid}",
      ...tag("guided paths"),
      summary: "Delete an empty category",
      request: { params: UidParam },
      responses: {
        204: { description: "Deleted" },
        409: json(ErrorSchema, "The category still has paths"),
        ...errorResponses,
      },
    }),
    async (c) => {
      await removeCategory(deps, c.req.valid("param").uid);
      return c.body(null, 204);
    },
  );

  const Step = z.object({ title: z.string(), body: z.string() });
  const GuidedPath = z.object({
    uid: z.string(),
    categoryUid: z.string(),
    title: z.string(),
    steps: z.array(Step),
    translations: z.record(
      z.string(),
      z.object({ title: z.string(), steps: z.array(Step).optional() }),
    ),
    tags: z.array(z.string()),
    published: z.boolean(),
    createdAt: z.string(),
    updatedAt: z.string(),
  }).openapi("GuidedPath");

  app.openapi(
    createRoute({
      method: "get",
      path: "/paths",
      ...tag("guided paths"),
      summary: "List guided paths",
      request: { query: z.object({ categoryUid: UuidSchema.optional() }) },
      responses: { 200: json(z.object({ items: z.array(GuidedPath) }), "The paths") },
    }),
    async (c) => c.json({ items: await paths(deps, c.req.valid("query").categoryUid) }, 200),
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/paths",
      ...tag("guided paths"),
      summary: "Create a guided path (uid generated when omitted)",
      request: body(CreatePathSchema),
      responses: {
        201: json(GuidedPath, "Created"),
        409: json(ErrorSchema, "uid used"),
        ...errorResponses,
      },
    }),
    async (c) => c.json(await addPath(deps, c.req.valid("json")), 201),
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/paths/{uid}",
      ...tag("guided paths"),
      summary: "Read a guided path",
      request: { params: UidParam },
      responses: { 200: json(GuidedPath, "The path"), ...errorResponses },
    }),
    async (c) => c.json(await pathByUid(deps, c.req.valid("param").uid), 200),
  );

  app.openapi(
    createRoute({
      method: "patch",
      path: "/paths/{uid}",
      ...tag("guided paths"),
      summary: "Change a guided path",
      request: { params: UidParam, ...body(UpdatePathSchema) },
      responses: { 200: json(GuidedPath, "The updated path"), ...errorResponses },
    }),
    async (c) => {
      const { uid } = c.req.valid("param");
      return c.json(await changePath(deps, uid, c.req.valid("json")), 200);
    },
  );

  app.openapi(
    createRoute({
      method: "delete",
      path: "/paths/{uid}",
      ...tag("guided paths"),
      summary: "Delete a guided path (launches naming it are refused as no longer valid)",
      request: { params: UidParam },
      responses: { 204: { description: "Deleted" }, ...errorResponses },
    }),
    async (c) => {
      await removePath(deps, c.req.valid("param").uid);
      return c.body(null, 204);
    },
  );

  app.openapi(
    createRoute({
      method: "put",
      path: "/agents/{id}/password",
      ...tag("users"),
      summary: "Set an agent's password, so the agent can sign in to the portal without a launch",
      request: { params: IdParam, ...body(AgentPasswordSchema) },
      responses: { 204: { description: "Set" }, ...errorResponses },
    }),
    async (c) => {
      await setPassword(deps, c.req.valid("param").id, c.req.valid("json").password);
      return c.body(null, 204);
    },
  );

  return app;
}
