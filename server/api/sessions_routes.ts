/** REST: /api/v1/sessions (read with sessions:read, change with sessions:write). */
import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import { deliveries } from "../callbacks/delivery_log.ts";
import { DeliverySchema, deliveryView } from "./deliveries_routes.ts";
import { listSessionsJson, sessionJsonById } from "../../db/queries/sessions.ts";
import type { Context } from "hono";
import type { Deps } from "../deps.ts";
import type { AppEnv } from "../http/env.ts";
import { AppError } from "../http/errors.ts";
import { requireScope } from "../oauth/bearer.ts";
import { changeSession } from "../sessions/changes.ts";
import { jsonTextWithEtag } from "./etag.ts";
import { concatUtf8 } from "../http/bytes.ts";
import {
  emptyResponse,
  errorResponses,
  jsonBody,
  jsonResponse,
  security,
  validationHook,
} from "./openapi_shared.ts";
import { decodeCursor, encodeCursor } from "./paging.ts";
import {
  ConditionalHeaders,
  IdParam,
  pageOf,
  SessionListQuery,
  SessionPatchSchema,
  SessionSchema,
} from "./schemas.ts";
import { APP_NOT_FOUND, appScope, inAppScope, scopeFilter } from "./app_scope.ts";
import { organizationFilter } from "./organization_filter.ts";

const tags = ["Sessions"];
const notFound = "No such session in the caller's app (`session_not_found`)";

/** Builds the sessions sub-app. */
export function sessionRoutes(deps: Deps): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });

  /** The session's JSON, or 404 when it is missing or outside the caller's app scope. */
  async function scopedSession(c: Context<AppEnv>, id: number): Promise<string> {
    const row = await sessionJsonById(deps.sql, id);
    if (!row || !inAppScope(await appScope(deps, c), row.appId)) {
      throw new AppError(404, "session_not_found", `Session ${id} not found`);
    }
    return row.json;
  }
  const read = requireScope(deps.auth, "sessions:read");
  const write = requireScope(deps.auth, "sessions:write");

  app.openapi(
    createRoute({
      method: "get",
      path: "/{id}",
      tags,
      operationId: "getSession",
      summary: "Read a session",
      description: "Answers an ETag; send it back in If-None-Match to get 304 when unchanged.",
      security: security("sessions:read"),
      middleware: [read] as const,
      request: { params: IdParam, headers: ConditionalHeaders },
      responses: {
        200: jsonResponse(SessionSchema, "The session", ["ETag"]),
        304: emptyResponse("Not modified (If-None-Match matched the ETag)", ["ETag"]),
        ...errorResponses("sessions:read", { input: true, notFound }),
      },
    }),
    async (c) => {
      const { id } = c.req.valid("param");
      return jsonTextWithEtag(c, await scopedSession(c, id));
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/",
      tags,
      operationId: "listSessions",
      summary: "List sessions, newest first",
      description: "Keyset pagination: pass nextCursor as cursor. Sessions created while you " +
        "page never cause duplicates or skipped items.",
      security: security("sessions:read"),
      middleware: [read] as const,
      request: { query: SessionListQuery },
      responses: {
        200: jsonResponse(pageOf(SessionSchema, "SessionPage"), "A page of sessions"),
        ...errorResponses("sessions:read", { input: true, notFound: APP_NOT_FOUND }),
      },
    }),
    async (c) => {
      const q = c.req.valid("query");
      const found = await listSessionsJson(deps.sql, {
        appId: scopeFilter(await appScope(deps, c)),
        organizationId: await organizationFilter(deps, c, q.organization),
        status: q.status,
        externalReference: q.externalReference,
        referenceId: q.referenceId,
        customerExternalId: q.customerExternalId,
        assigneeId: q.assigneeId,
        updatedSince: q.updatedSince ? new Date(q.updatedSince) : undefined,
        beforeId: decodeCursor(q.cursor),
      }, q.limit);
      // The page as PostgreSQL built it: the same {items, nextCursor} as the other lists.
      const next = found.more && found.lastId !== null ? encodeCursor(found.lastId) : null;
      c.header("Cache-Control", "no-store");
      c.header("Content-Type", "application/json");
      return c.body(
        concatUtf8(['{"items":', found.items, `,"nextCursor":${JSON.stringify(next)}}`]),
        200,
      );
    },
  );

  app.openapi(
    createRoute({
      method: "patch",
      path: "/{id}",
      tags,
      operationId: "updateSession",
      summary: "Change a session's status, assignee or custom fields",
      description: "The portal's rules: custom fields must be configured (null removes one); " +
        "the assignee must be an agent (null unassigns).",
      security: security("sessions:write"),
      middleware: [write] as const,
      request: { params: IdParam, ...jsonBody(SessionPatchSchema) },
      responses: {
        200: jsonResponse(SessionSchema, "The changed session"),
        ...errorResponses("sessions:write", { input: true, body: "required", notFound }),
      },
    }),
    async (c) => {
      const { id } = c.req.valid("param");
      await scopedSession(c, id);
      await changeSession(deps, id, c.req.valid("json"), { agentId: null, via: "api" });
      const row = await sessionJsonById(deps.sql, id);
      if (!row) throw new AppError(404, "session_not_found", `Session ${id} not found`);
      c.header("Cache-Control", "no-store");
      c.header("Content-Type", "application/json");
      return c.body(row.json, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/{id}/events",
      tags,
      operationId: "listSessionCallbackEvents",
      summary: "The session's callback events, newest first, with their delivery attempts",
      security: security("sessions:read"),
      middleware: [read] as const,
      request: { params: IdParam },
      responses: {
        200: jsonResponse(z.object({ items: z.array(DeliverySchema) }), "Its events"),
        ...errorResponses("sessions:read", { input: true, notFound }),
      },
    }),
    async (c) => {
      const { id } = c.req.valid("param");
      await scopedSession(c, id);
      const rows = await deliveries(deps, { sessionId: id, limit: 200 });
      c.header("Cache-Control", "no-store");
      return c.json({ items: rows.map(deliveryView) }, 200);
    },
  );

  return app;
}
