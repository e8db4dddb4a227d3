/** Admin API: organizations (the companies that own apps, agents and teams). */
import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import type { Deps } from "../../deps.ts";
import type { AppEnv } from "../../http/env.ts";
import { ErrorSchema, jsonBody, jsonResponse, validationHook } from "../../api/openapi_shared.ts";
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
import { adminErrors, adminTag } from "./openapi_meta.ts";

const SlugParam = z.object({
  slug: z.string().max(63).openapi({ param: { name: "slug", in: "path" }, example: "acme" }),
});
const tag = adminTag("organizations");

/** The /organizations operations. */
export function organizationsApi(deps: Deps): OpenAPIHono<AppEnv> {
  const api = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });

  api.openapi(
    createRoute({
      method: "post",
      path: "/organizations",
      ...tag,
      summary: "Create an organization",
      request: jsonBody(CreateOrganizationSchema),
      responses: {
        201: jsonResponse(OrganizationSchema, "Created"),
        409: jsonResponse(ErrorSchema, "The slug is taken (`organization_exists`)"),
        ...adminErrors,
      },
    }),
    async (c) => c.json(organizationView(await createOrganization(deps, c.req.valid("json"))), 201),
  );

  api.openapi(
    createRoute({
      method: "get",
      path: "/organizations",
      ...tag,
      summary: "List organizations, by slug",
      responses: {
        200: jsonResponse(z.object({ items: z.array(OrganizationSchema) }), "The organizations"),
      },
    }),
    async (c) => c.json({ items: (await allOrganizations(deps)).map(organizationView) }, 200),
  );

  api.openapi(
    createRoute({
      method: "patch",
      path: "/organizations/{slug}",
      ...tag,
      summary: "Rename an organization (its slug never changes)",
      request: { params: SlugParam, ...jsonBody(UpdateOrganizationSchema) },
      responses: {
        200: jsonResponse(OrganizationSchema, "The renamed organization"),
        ...adminErrors,
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
      summary: "Delete an organization with its agents and teams",
      description: "Refused while the organization owns apps (409 `organization_has_apps`: " +
        "delete them or move them first) and for `default` (409 `organization_is_default`). " +
        "Its agents (with their logins and passwords) and teams are deleted with it.",
      request: { params: SlugParam },
      responses: {
        204: { description: "Deleted" },
        409: jsonResponse(ErrorSchema, "It still owns apps, or it is `default`"),
        ...adminErrors,
      },
    }),
    async (c) => {
      await removeOrganization(deps, c.req.valid("param").slug);
      return c.body(null, 204);
    },
  );

  return api;
}
