/** Admin API: guided paths, their categories and the paths themselves (deleting is soft). */
import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import type { Deps } from "../../deps.ts";
import type { AppEnv } from "../../http/env.ts";
import { ErrorSchema, jsonBody, jsonResponse, validationHook } from "../../api/openapi_shared.ts";
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
} from "../guided_paths.ts";
import {
  CreateCategorySchema,
  CreatePathSchema,
  UpdateCategorySchema,
  UpdatePathSchema,
  UuidSchema,
} from "../schemas.ts";
import { adminErrors, adminTag } from "./openapi_meta.ts";

const UidParam = z.object({ uid: UuidSchema });
const tag = adminTag("guided paths");

const Category = z.object({
  uid: z.string(),
  name: z.string(),
  createdAt: z.string(),
  updatedAt: z.string(),
}).openapi("PathCategory");

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

/** The /path-categories operations. */
function categoriesApi(deps: Deps): OpenAPIHono<AppEnv> {
  const api = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });

  api.openapi(
    createRoute({
      method: "get",
      path: "/path-categories",
      ...tag,
      summary: "List guided-path categories",
      responses: { 200: jsonResponse(z.object({ items: z.array(Category) }), "The categories") },
    }),
    async (c) => c.json({ items: await categories(deps) }, 200),
  );

  api.openapi(
    createRoute({
      method: "post",
      path: "/path-categories",
      ...tag,
      summary: "Create a category (uid generated when omitted)",
      request: jsonBody(CreateCategorySchema),
      responses: {
        201: jsonResponse(Category, "Created"),
        409: jsonResponse(ErrorSchema, "uid used"),
        ...adminErrors,
      },
    }),
    async (c) => c.json(await addCategory(deps, c.req.valid("json")), 201),
  );

  api.openapi(
    createRoute({
      method: "patch",
      path: "/path-categories/{uid}",
      ...tag,
      summary: "Rename a category",
      request: { params: UidParam, ...jsonBody(UpdateCategorySchema) },
      responses: { 200: jsonResponse(Category, "Renamed"), ...adminErrors },
    }),
    async (c) => {
      const { uid } = c.req.valid("param");
      return c.json(await renameCategoryByUid(deps, uid, c.req.valid("json").name), 200);
    },
  );

  api.openapi(
    createRoute({
      method: "delete",
      path: "/path-categories/{uid}",
      ...tag,
      summary: "Delete an empty category",
      request: { params: UidParam },
      responses: {
        204: { description: "Deleted" },
        409: jsonResponse(ErrorSchema, "The category still has paths"),
        ...adminErrors,
      },
    }),
    async (c) => {
      await removeCategory(deps, c.req.valid("param").uid);
      return c.body(null, 204);
    },
  );

  return api;
}

/** The /paths operations. */
function pathsApi(deps: Deps): OpenAPIHono<AppEnv> {
  const api = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });

  api.openapi(
    createRoute({
      method: "get",
      path: "/paths",
      ...tag,
      summary: "List guided paths",
      request: { query: z.object({ categoryUid: UuidSchema.optional() }) },
      responses: { 200: jsonResponse(z.object({ items: z.array(GuidedPath) }), "The paths") },
    }),
    async (c) => c.json({ items: await paths(deps, c.req.valid("query").categoryUid) }, 200),
  );

  api.openapi(
    createRoute({
      method: "post",
      path: "/paths",
      ...tag,
      summary: "Create a guided path (uid generated when omitted)",
      request: jsonBody(CreatePathSchema),
      responses: {
        201: jsonResponse(GuidedPath, "Created"),
        409: jsonResponse(ErrorSchema, "uid used"),
        ...adminErrors,
      },
    }),
    async (c) => c.json(await addPath(deps, c.req.valid("json")), 201),
  );

  api.openapi(
    createRoute({
      method: "get",
      path: "/paths/{uid}",
      ...tag,
      summary: "Read a guided path",
      request: { params: UidParam },
      responses: { 200: jsonResponse(GuidedPath, "The path"), ...adminErrors },
    }),
    async (c) => c.json(await pathByUid(deps, c.req.valid("param").uid), 200),
  );

  api.openapi(
    createRoute({
      method: "patch",
      path: "/paths/{uid}",
      ...tag,
      summary: "Change a guided path",
      request: { params: UidParam, ...jsonBody(UpdatePathSchema) },
      responses: { 200: jsonResponse(GuidedPath, "The updated path"), ...adminErrors },
    }),
    async (c) => {
      const { uid } = c.req.valid("param");
      return c.json(await changePath(deps, uid, c.req.valid("json")), 200);
    },
  );

  api.openapi(
    createRoute({
      method: "delete",
      path: "/paths/{uid}",
      ...tag,
      summary: "Delete a guided path (launches naming it are refused as no longer valid)",
      request: { params: UidParam },
      responses: { 204: { description: "Deleted" }, ...adminErrors },
    }),
    async (c) => {
      await removePath(deps, c.req.valid("param").uid);
      return c.body(null, 204);
    },
  );

  return api;
}

/** The guided-path operations: /path-categories and /paths. */
export function guidedPathsApi(deps: Deps): OpenAPIHono<AppEnv> {
  const api = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
  api.route("/", categoriesApi(deps));
  api.route("/", pathsApi(deps));
  return api;
}
