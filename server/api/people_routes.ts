/** REST: /api/v1/customers and /api/v1/agents (read-only, scope sessions:read), one factory. */
import { createRoute, OpenAPIHono, type z } from "@hono/zod-openapi";
import {
  agentById,
  type AppScope,
  customerById,
  listAgents,
  listCustomers,
  type PeopleFilter,
} from "../../db/queries/people.ts";
import type { Sql } from "../../db/mod.ts";
import type { Deps } from "../deps.ts";
import type { AppEnv } from "../http/env.ts";
import { AppError } from "../http/errors.ts";
import { requireScope } from "../oauth/bearer.ts";
import { jsonWithEtag } from "./etag.ts";
import {
  emptyResponse,
  errorResponses,
  jsonResponse,
  security,
  validationHook,
} from "./openapi_shared.ts";
import { decodeCursor, page } from "./paging.ts";
import {
  AgentSchema,
  ConditionalHeaders,
  CustomerSchema,
  IdParam,
  pageOf,
  PeopleQuery,
} from "./schemas.ts";
import { agentView, customerView } from "./views.ts";
import { APP_NOT_FOUND, appScope } from "./app_scope.ts";
import { organizationFilter } from "./organization_filter.ts";

/** What sets one people resource apart: its names, schema, queries and view. */
export interface PeopleResource<Row extends { id: number }> {
  /** One of them, lowercase: "customer" (the 404's code is `<one>_not_found`). */
  one: string;
  /** Several of them, lowercase: "customers". */
  many: string;
  /** One of them as a title: "Customer" (the 404's message, the page schema `<title>Page`). */
  title: string;
  /** The OpenAPI tag of its operations. */
  tag: string;
  /** The summary of its GET /{id}. */
  readSummary: string;
  /** The schema of one of them as the API shows it. */
  schema: z.ZodType;
  /** One of them in the caller's scope, or null. */
  byId(sql: Sql, id: number, scope: AppScope): Promise<Row | null>;
  /** A page of them, newest first. */
  list(sql: Sql, filter: PeopleFilter, limit: number): Promise<Row[]>;
  /** A row as the API shows it. */
  view(row: Row): unknown;
}

/** Builds the sub-app of a people resource: GET /{id} (with an ETag) and GET / (a page). */
export function peopleRoutes<Row extends { id: number }>(
  deps: Deps,
  resource: PeopleResource<Row>,
): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
  const read = requireScope(deps.auth, "sessions:read");
  const tags = [resource.tag];

  app.openapi(
    createRoute({
      method: "get",
      path: "/{id}",
      tags,
      operationId: `get${resource.title}`,
      summary: resource.readSummary,
      security: security("sessions:read"),
      middleware: [read] as const,
      request: { params: IdParam, headers: ConditionalHeaders },
      responses: {
        200: jsonResponse(resource.schema, `The ${resource.one}`, ["ETag"]),
        304: emptyResponse("Not modified (If-None-Match matched the ETag)", ["ETag"]),
        ...errorResponses("sessions:read", {
          input: true,
          notFound: `No such ${resource.one} in the caller's app (\`${resource.one}_not_found\`)`,
        }),
      },
    }),
    async (c) => {
      const { id } = c.req.valid("param");
      const row = await resource.byId(deps.sql, id, await appScope(deps, c));
      if (!row) {
        throw new AppError(404, `${resource.one}_not_found`, `${resource.title} ${id} not found`);
      }
      return jsonWithEtag(c, resource.view(row));
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/",
      tags,
      operationId: `list${resource.title}s`,
      summary: `Find ${resource.many} by e-mail or external id, newest first`,
      security: security("sessions:read"),
      middleware: [read] as const,
      request: { query: PeopleQuery },
      responses: {
        200: jsonResponse(
          pageOf(resource.schema, `${resource.title}Page`),
          `A page of ${resource.many}`,
        ),
        ...errorResponses("sessions:read", { input: true, notFound: APP_NOT_FOUND }),
      },
    }),
    async (c) => {
      const q = c.req.valid("query");
      const rows = await resource.list(deps.sql, {
        email: q.email,
        externalId: q.externalId,
        beforeId: decodeCursor(q.cursor),
        scope: await appScope(deps, c),
        organizationId: await organizationFilter(deps, c, q.organization),
      }, q.limit + 1);
      c.header("Cache-Control", "no-store");
      return c.json(page(rows, q.limit, resource.view), 200);
    },
  );
  return app;
}

/** Builds the customers sub-app. */
export function customerRoutes(deps: Deps): OpenAPIHono<AppEnv> {
  return peopleRoutes(deps, {
    one: "customer",
    many: "customers",
    title: "Customer",
    tag: "Customers",
    readSummary: "Read a customer",
    schema: CustomerSchema,
    byId: customerById,
    list: listCustomers,
    view: customerView,
  });
}

/** Builds the agents sub-app. */
export function agentRoutes(deps: Deps): OpenAPIHono<AppEnv> {
  return peopleRoutes(deps, {
    one: "agent",
    many: "agents",
    title: "Agent",
    tag: "Agents",
    readSummary: "Read an agent with its teams",
    schema: AgentSchema,
    byId: agentById,
    list: listAgents,
    view: agentView,
  });
}
