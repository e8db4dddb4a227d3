/** REST: /api/v1/launches, the launch audit log (scope admin: every app's, or one with ?app=). */
import { createRoute, OpenAPIHono } from "@hono/zod-openapi";
import { launchById, listLaunches } from "../../db/queries/launch_log.ts";
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
import { ConditionalHeaders, IdParam, LaunchListQuery, LaunchSchema, pageOf } from "./schemas.ts";
import { launchView } from "./views.ts";
import { APP_NOT_FOUND, appScope, scopeFilter } from "./app_scope.ts";
import { organizationFilter } from "./organization_filter.ts";

/** Builds the launches sub-app. */
export function launchLogRoutes(deps: Deps): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
  // The launch log holds every app's payloads: tokens with the admin scope only, limited to one
  // app's launches unless the client is an admin client (app_scope.ts).
  const admin = requireScope(deps.auth, "admin");
  const tags = ["Launches"];

  app.openapi(
    createRoute({
      method: "get",
      path: "/",
      tags,
      operationId: "listLaunches",
      summary: "The launch audit log, newest first",
      description: "One record per launch attempt: app, outcome (ok or the error code), agent, " +
        "session, client address, user agent and the decoded payload.",
      security: security("admin"),
      middleware: [admin] as const,
      request: { query: LaunchListQuery },
      responses: {
        200: jsonResponse(pageOf(LaunchSchema, "LaunchPage"), "A page of launch attempts"),
        ...errorResponses("admin", { input: true, notFound: APP_NOT_FOUND }),
      },
    }),
    async (c) => {
      const q = c.req.valid("query");
      const rows = await listLaunches(deps.sql, {
        appId: scopeFilter(await appScope(deps, c)),
        organizationId: await organizationFilter(deps, c, q.organization),
        app: q.app,
        outcome: q.outcome,
        since: q.since ? new Date(q.since) : undefined,
        withWarnings: q.warnings === "true",
        beforeId: decodeCursor(q.cursor),
      }, q.limit + 1);
      c.header("Cache-Control", "no-store");
      return c.json(page(rows, q.limit, launchView), 200);
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/{id}",
      tags,
      operationId: "getLaunch",
      summary: "One launch attempt",
      security: security("admin"),
      middleware: [admin] as const,
      request: { params: IdParam, headers: ConditionalHeaders },
      responses: {
        200: jsonResponse(LaunchSchema, "The launch attempt", ["ETag"]),
        304: emptyResponse("Not modified (If-None-Match matched the ETag)", ["ETag"]),
        ...errorResponses("admin", {
          input: true,
          notFound: "No such launch in the caller's app (`launch_not_found`)",
        }),
      },
    }),
    async (c) => {
      const { id } = c.req.valid("param");
      const row = await launchById(deps.sql, id, scopeFilter(await appScope(deps, c)));
      if (!row) throw new AppError(404, "launch_not_found", `Launch ${id} not found`);
      return jsonWithEtag(c, launchView(row));
    },
  );
  return app;
}
