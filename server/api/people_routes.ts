/** REST: /api/v1/customers and /api/v1/agents (read-only, scope sessions:read). */
import { createRoute, OpenAPIHono } from "@hono/zod-openapi";
import { agentById, customerById, listAgents, listCustomers } from "../../db/queries/people.ts";
import type { Deps } from "../deps.ts";
import type { AppEnv } from "../http/env.ts";
import { AppError } from "../http/errors.ts";
import { requireScope } from "../oauth/bearer.ts";
import { jsonWithEtag } from "./etag.ts";
import { errorResponses, jsonResponse, security, validationHook } from "./openapi_shared.ts";
import { decodeCursor, page } from "./paging.ts";
import { AgentSchema, CustomerSchema, IdParam, pageOf, PeopleQuery } from "./schemas.ts";
import { agentView, customerView } from "./views.ts";
import { appScope } from "./app_scope.ts";

/** Builds the customers sub-app. */
export function customerRoutes(deps: Deps): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
  const read = requireScope(deps.auth, "sessions:read");
  const tags = ["Customers"];

  app.openapi(
    createRoute({
      method: "get",
      path: "/{id}",
      tags,
      summary: "Read a customer",
      security: security("sessions:read"),
      middleware: [read] as const,
      request: { params: IdParam },
      responses: {
        200: jsonResponse(CustomerSchema, "The customer"),
        304: { description: "Not modified (If-None-Match matched the ETag)" },
        ...errorResponses("sessions:read"),
      },
    }),
    async (c) => {
      const { id } = c.req.valid("param");
      const row = await customerById(deps.sql, id, await appScope(deps, c));
      if (!row) throw new AppError(404, "customer_not_found", `Customer ${id} not found`);
      return jsonWithEtag(c, customerView(row));
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/",
      tags,
      summary: "Find customers by e-mail or external id, newest first",
      security: security("sessions:read"),
      middleware: [read] as const,
      request: { query: PeopleQuery },
      responses: {
        200: jsonResponse(pageOf(CustomerSchema, "CustomerPage"), "A page of customers"),
        ...errorResponses("sessions:read", false),
      },
    }),
    async (c) => {
      const q = c.req.valid("query");
      const rows = await listCustomers(deps.sql, {
        email: q.email,
        externalId: q.externalId,
        beforeId: decodeCursor(q.cursor),
        scope: await appScope(deps, c),
      }, q.limit + 1);
      c.header("Cache-Control", "no-store");
      return c.json(page(rows, q.limit, customerView), 200);
    },
  );
  return app;
}

/** Builds the agents sub-app. */
export function agentRoutes(deps: Deps): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
  const read = requireScope(deps.auth, "sessions:read");
  const tags = ["Agents"];

  app.openapi(
    createRoute({
      method: "get",
      path: "/{id}",
      tags,
      summary: "Read an agent with its teams",
      security: security("sessions:read"),
      middleware: [read] as const,
      request: { params: IdParam },
      responses: {
        200: jsonResponse(AgentSchema, "The agent"),
        304: { description: "Not modified (If-None-Match matched the ETag)" },
        ...errorResponses("sessions:read"),
      },
    }),
    async (c) => {
      const { id } = c.req.valid("param");
      const row = await agentById(deps.sql, id, await appScope(deps, c));
      if (!row) throw new AppError(404, "agent_not_found", `Agent ${id} not found`);
      return jsonWithEtag(c, agentView(row));
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/",
      tags,
      summary: "Find agents by e-mail or external id, newest first",
      security: security("sessions:read"),
      middleware: [read] as const,
      request: { query: PeopleQuery },
      responses: {
        200: jsonResponse(pageOf(AgentSchema, "AgentPage"), "A page of agents"),
        ...errorResponses("sessions:read", false),
      },
    }),
    async (c) => {
      const q = c.req.valid("query");
      const rows = await listAgents(deps.sql, {
        email: q.email,
        externalId: q.externalId,
        beforeId: decodeCursor(q.cursor),
        scope: await appScope(deps, c),
      }, q.limit + 1);
      c.header("Cache-Control", "no-store");
      return c.json(page(rows, q.limit, agentView), 200);
    },
  );
  return app;
}
