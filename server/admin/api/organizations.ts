/** Admin API: organizations (the companies that own apps, agents and teams). */
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
  allOrganizations,
  changeOrganizationName,
  createOrganization,
  organizationView,
  removeOrganization,
} from "../organizations.ts";
import {
  CreateOrganizationSchema,
  OrganizationSchema,
  UpdateOrganizationSchema,
} from "../schemas.ts";
import { adminErrors, adminTag, setLocation } from "./openapi_meta.ts";

const SlugParam = z.object({
  slug: z.string().max(63).openapi({ param: { name: "slug", in: "path" }, example: "acme" }),
});
const tag = adminTag("organizations");
const notFound = "No organization has this slug (`organization_not_found`)";

/** The /organizations operations. */
export function organizationsApi(deps: Deps): OpenAPIHono<AppEnv> {
  const api = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });

  api.openapi(
    createRoute({
      method: "post",
      path: "/organizations",
      ...tag,
      operationId: "createOrganization",
      summary: "Create an organization",
      request: jsonBody(CreateOrganizationSchema),
      responses: {
        201: jsonResponse(OrganizationSchema, "Created", ["Location"]),
        409: jsonResponse(ErrorSchema, "The slug is taken (`organization_exists`)"),
        ...adminErrors({ body: "required" }),
      },
    }),
    async (c) => {
      const org = organizationView(await createOrganization(deps, c.req.valid("json")));
      setLocation(deps, c, "organizations", org.slug);
      return c.json(org, 201);
    },
  );

  api.openapi(
    createRoute({
      method: "get",
      path: "/organizations",
      ...tag,
      operationId: "listOrganizations",
      summary: "List organizations, by slug",
      responses: {
        200: jsonResponse(z.object({ items: z.array(OrganizationSchema) }), "The organizations"),
        ...adminErrors(),
      },
    }),
    async (c) => c.json({ items: (await allOrganizations(deps)).map(organizationView) }, 200),
  );

  api.openapi(
    createRoute({
      method: "patch",
      path: "/organizations/{slug}",
      ...tag,
      operationId: "updateOrganization",
      summary: "Rename an organization (its slug never changes)",
      request: { params: SlugParam, ...jsonBody(UpdateOrganizationSchema) },
      responses: {
        200: jsonResponse(OrganizationSchema, "The renamed organization"),
        ...adminErrors({ input: true, body: "required", notFound }),
      },
    }),
    async (c) => {
      const { slug } = c.req.valid("param");
      const row = await changeOrganizationName(deps, slug, c.req.valid("json").name);
      return c.json(organizationView(row), 200);
    },
  );

  api.openapi(
    createRoute({
      method: "delete",
      path: "/organizations/{slug}",
      ...tag,
      operationId: "deleteOrganization",
      summary: "Delete an organization with its agents and teams",
      description: "Refused while the organization owns apps (409 `organization_has_apps`: " +
        "delete them or move them first) and for `default` (409 `organization_is_default`). " +
        "Its agents (with their logins and passwords) and teams are deleted with it.",
      request: { params: SlugParam },
      responses: {
        204: emptyResponse("Deleted"),
        409: jsonResponse(
          ErrorSchema,
          "It still owns apps (`organization_has_apps`), or it is `default` " +
            "(`organization_is_default`)",
        ),
        ...adminErrors({ input: true, notFound }),
      },
    }),
    async (c) => {
      await removeOrganization(deps, c.req.valid("param").slug);
      return c.body(null, 204);
    },
  );

  return api;
}
