/**
 * REST: /api/v1/deliveries, the callback delivery log: every event with every attempt (time,
 * status code, duration, error, response snippet), and redelivery. An app's own client sees its
 * app's events; an admin client every app's (or one with `?app=`).
 */
import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import { deliveries, type DeliveryRow, redeliver } from "../callbacks/delivery_log.ts";
import { EVENT_TYPES } from "../callbacks/contract.ts";
import type { Deps } from "../deps.ts";
import type { AppEnv } from "../http/env.ts";
import { requireScope } from "../oauth/bearer.ts";
import {
  errorResponses,
  ErrorSchema,
  jsonResponse,
  security,
  validationHook,
} from "./openapi_shared.ts";
import { decodeCursor, page } from "./paging.ts";
import { AppQuery, IdParam, OrganizationQuery, pageOf, PageQuery } from "./schemas.ts";
import { APP_NOT_FOUND, appScope, scopeFilter } from "./app_scope.ts";
import { organizationFilter } from "./organization_filter.ts";
import { msg } from "../zod_messages.ts";

const STATUSES = ["pending", "delivering", "delivered", "failed"] as const;

/** Query of GET /deliveries. */
export const DeliveryListQuery = z.object({
  ...PageQuery,
  ...AppQuery,
  ...OrganizationQuery,
  status: z.enum(STATUSES, msg(`expected one of ${STATUSES.join(", ")}`)).optional(),
  type: z.enum(EVENT_TYPES, msg(`expected one of ${EVENT_TYPES.join(", ")}`)).optional(),
  referenceId: z.string().max(128).optional(),
  sessionId: z.string().regex(/^[1-9][0-9]{0,14}$/, "expected a numeric id").transform(Number)
    .optional(),
});

const AttemptSchema = z.object({
  startedAt: z.string(),
  durationMs: z.number().int(),
  statusCode: z.number().int().nullable(),
  error: z.string().nullable(),
  responseSnippet: z.string().nullable().openapi({ description: "First 4 KiB of the answer" }),
  url: z.string(),
}).openapi("DeliveryAttempt");

/** A callback event with its attempts. */
export const DeliverySchema = z.object({
  id: z.number().int(),
  webhookId: z.string().openapi({ description: "webhook-id header: the idempotency key" }),
  appName: z.string(),
  type: z.enum(EVENT_TYPES),
  sessionId: z.number().int().nullable(),
  referenceId: z.string().nullable(),
  status: z.enum(STATUSES),
  attempts: z.number().int().openapi({ description: "Attempts of the current round" }),
  nextAttemptAt: z.string().nullable().openapi({ description: "When pending: the next try" }),
  lastError: z.string().nullable(),
  createdAt: z.string(),
  finishedAt: z.string().nullable(),
  payload: z.record(z.string(), z.unknown()).openapi({ description: "The event body" }),
  attemptLog: z.array(AttemptSchema),
}).openapi("Delivery");

/** A delivery as the API shows it. */
export function deliveryView(r: DeliveryRow): z.infer<typeof DeliverySchema> {
  const iso = (d: Date | string | null) => d ? new Date(d).toISOString() : null;
  return {
    id: r.id,
    webhookId: r.webhookId,
    appName: r.appName,
    type: r.type as z.infer<typeof DeliverySchema>["type"],
    sessionId: r.sessionId,
    referenceId: r.referenceId,
    status: r.status,
    attempts: r.attempts,
    nextAttemptAt: r.status === "pending" ? iso(r.nextAttemptAt) : null,
    lastError: r.lastError,
    createdAt: iso(r.createdAt)!,
    finishedAt: iso(r.finishedAt),
    payload: withoutJoinSecrets(r.payload),
    attemptLog: r.attemptLog.map((a) => ({ ...a, startedAt: iso(a.startedAt)! })),
  };
}

/**
 * A `remote.invited` body without what joins the invitation: whoever reads deliveries with
 * `sessions:read` must not get a live join link or code (the CRM received them in the delivery).
 */
export function withoutJoinSecrets(payload: Record<string, unknown>): Record<string, unknown> {
  const data = payload?.data as Record<string, unknown> | undefined;
  if (payload?.type !== "remote.invited" || !data) return payload;
  const joinUrl = typeof data.joinUrl === "string" ? data.joinUrl.replace(/[^/]+$/, "…") : null;
  return { ...payload, data: { ...data, joinUrl, code: "•••••••••" } };
}

/** Builds the deliveries sub-app. */
export function deliveryRoutes(deps: Deps): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
  const read = requireScope(deps.auth, "sessions:read");
  const write = requireScope(deps.auth, "sessions:write");
  const tags = ["Callbacks"];

  app.openapi(
    createRoute({
      method: "get",
      path: "/",
      tags,
      operationId: "listDeliveries",
      summary: "Callback events with every delivery attempt, newest first",
      security: security("sessions:read"),
      middleware: [read] as const,
      request: { query: DeliveryListQuery },
      responses: {
        200: jsonResponse(pageOf(DeliverySchema, "DeliveryPage"), "A page of events"),
        ...errorResponses("sessions:read", { input: true, notFound: APP_NOT_FOUND }),
      },
    }),
    async (c) => {
      const q = c.req.valid("query");
      const rows = await deliveries(deps, {
        appId: scopeFilter(await appScope(deps, c)),
        organizationId: await organizationFilter(deps, c, q.organization),
        status: q.status,
        type: q.type,
        referenceId: q.referenceId,
        sessionId: q.sessionId,
        beforeId: decodeCursor(q.cursor),
        limit: q.limit + 1,
      });
      c.header("Cache-Control", "no-store");
      return c.json(page(rows, q.limit, deliveryView), 200);
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/{id}/redeliver",
      tags,
      operationId: "redeliverEvent",
      summary: "Send an event again (a new round of attempts, same webhook-id)",
      security: security("sessions:write"),
      middleware: [write] as const,
      request: { params: IdParam },
      responses: {
        202: jsonResponse(DeliverySchema, "Queued again"),
        409: jsonResponse(ErrorSchema, "Being delivered right now (`delivery_in_progress`)"),
        ...errorResponses("sessions:write", {
          input: true,
          notFound: "No such event in the caller's app (`delivery_not_found`)",
        }),
      },
    }),
    async (c) => {
      const { id } = c.req.valid("param");
      const queued = await redeliver(deps, id, scopeFilter(await appScope(deps, c)));
      return c.json(deliveryView(queued), 202);
    },
  );
  return app;
}
