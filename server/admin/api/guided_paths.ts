/** Admin API: guided paths, their categories and the paths themselves (deleting is soft). */
import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import type { Deps } from "../../deps.ts";
import type { AppEnv } from "../../http/env.ts";
import {
  emptyResponse,
  ErrorSchema,
  jsonBody,
  jsonResponse,
  validationHook,
} from "../../api/openapi_shared.ts";
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
import { adminErrors, adminTag, setLocation } from "./openapi_meta.ts";

const UidParam = z.object({ uid: UuidSchema });
const tag = adminTag("guided paths");
const categoryNotFound = "No category has this uid (`category_not_found`)";
const pathNotFound = "No guided path has this uid (`path_not_found`)";

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
      operationId: "listPathCategories",
      summary: "List guided-path categories",
      responses: {
        200: jsonResponse(z.object({ items: z.array(Category) }), "The categories"),
        ...adminErrors(),
      },
    }),
    async (c) => c.json({ items: await categories(deps) }, 200),
  );

  api.openapi(
    createRoute({
      method: "post",
      path: "/path-categories",
      ...tag,
      operationId: "createPathCategory",
      summary: "Create a category (uid generated when omitted)",
      request: jsonBody(CreateCategorySchema),
      responses: {
        201: jsonResponse(Category, "Created", ["Location"]),
        409: jsonResponse(ErrorSchema, "A category has this uid (`category_exists`)"),
        ...adminErrors({ body: "required" }),
      },
    }),
    async (c) => {
      const category = await addCategory(deps, c.req.valid("json"));
      setLocation(deps, c, "path-categories", category.uid);
      return c.json(category, 201);
    },
  );

  api.openapi(
    createRoute({
      method: "patch",
      path: "/path-categories/{uid}",
      ...tag,
      operationId: "updatePathCategory",
      summary: "Rename a category",
      request: { params: UidParam, ...jsonBody(UpdateCategorySchema) },
      responses: {
        200: jsonResponse(Category, "Renamed"),
        ...adminErrors({ input: true, body: "required", notFound: categoryNotFound }),
      },
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
      operationId: "deletePathCategory",
      summary: "Delete an empty category",
      request: { params: UidParam },
      responses: {
        204: emptyResponse("Deleted"),
        409: jsonResponse(ErrorSchema, "The category still has paths (`category_not_empty`)"),
        ...adminErrors({ input: true, notFound: categoryNotFound }),
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
      operationId: "listPaths",
      summary: "List guided paths",
      request: { query: z.object({ categoryUid: UuidSchema.optional() }) },
      responses: {
        200: jsonResponse(z.object({ items: z.array(GuidedPath) }), "The paths"),
        ...adminErrors({ input: true }),
      },
    }),
    async (c) => c.json({ items: await paths(deps, c.req.valid("query").categoryUid) }, 200),
  );

  api.openapi(
    createRoute({
      method: "post",
      path: "/paths",
      ...tag,
      operationId: "createPath",
      summary: "Create a guided path (uid generated when omitted)",
      request: jsonBody(CreatePathSchema),
      responses: {
        201: jsonResponse(GuidedPath, "Created", ["Location"]),
        409: jsonResponse(ErrorSchema, "A guided path has this uid (`path_exists`)"),
        ...adminErrors({ body: "required" }),
      },
    }),
    async (c) => {
      const path = await addPath(deps, c.req.valid("json"));
      setLocation(deps, c, "paths", path.uid);
      return c.json(path, 201);
    },
  );

  api.openapi(
    createRoute({
      method: "get",
      path: "/paths/{uid}",
      ...tag,
      operationId: "getPath",
      summary: "Read a guided path",
      request: { params: UidParam },
      responses: {
        200: jsonResponse(GuidedPath, "The path"),
        ...adminErrors({ input: true, notFound: pathNotFound }),
      },
    }),
    async (c) => c.json(await pathByUid(deps, c.req.valid("param").uid), 200),
  );

  api.openapi(
    createRoute({
      method: "patch",
      path: "/paths/{uid}",
      ...tag,
      operationId: "updatePath",
      summary: "Change a guided path",
      request: { params: UidParam, ...jsonBody(UpdatePathSchema) },
      responses: {
        200: jsonResponse(GuidedPath, "The updated path"),
        ...adminErrors({ input: true, body: "required", notFound: pathNotFound }),
      },
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
      operationId: "deletePath",
      summary: "Delete a guided path (launches naming it are refused as no longer valid)",
      request: { params: UidParam },
      responses: {
        204: emptyResponse("Deleted"),
        ...adminErrors({ input: true, notFound: pathNotFound }),
      },
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
