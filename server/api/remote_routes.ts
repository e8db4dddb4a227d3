/**
 * REST: a session's remote sessions (screen sharing, docs/remote.md). POST opens an invitation
 * (scope sessions:write) as the portal's Start button does; GET lists them with their status,
 * who ended them and their durations (sessions:read). Mounted under /api/v1/sessions.
 */
import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { Deps } from "../deps.ts";
import type { AppEnv } from "../http/env.ts";
import { AppError } from "../http/errors.ts";
import { publicOrigin } from "../http/public_origin.ts";
import { requireScope } from "../oauth/bearer.ts";
import { sessionJsonById } from "../../db/queries/sessions.ts";
import { remoteById, type RemoteRow, remotesOfSession } from "../../db/queries/remote.ts";
import { invite } from "../remote/invitations.ts";
import { errorResponses, jsonResponse, security, validationHook } from "./openapi_shared.ts";
import { IdParam } from "./schemas.ts";
import { appScope, inAppScope } from "./app_scope.ts";

const tags = ["Remote support"];
const notFound = "No such session in the caller's app (`session_not_found`)";

const RemotePathParams = IdParam.extend({
  remoteId: z.string().regex(/^[1-9][0-9]{0,14}$/, "expected a numeric id").transform(Number)
    .openapi({ param: { name: "remoteId", in: "path" }, example: "7", type: "string" }),
});

const STATUSES = ["invited", "joined", "sharing", "ended", "expired"] as const;

const InvitationSchema = z.object({
  id: z.number().int().openapi({ example: 12 }),
  joinUrl: z.string().url().openapi({
    description: "`{portal_url}/r/<token>`: send it to the customer (works once, one device)",
    example: "https://portal.example.com/portal/r/4fQ2kZ0m9yH3Vd8nE1xWc7uTq5Lb6RaJs0PoNiMhGgA",
  }),
  code: z.string().regex(/^\d{9}$/).openapi({
    description: "Nine digits to read out; the customer types them at `{portal_url}/r`",
    example: "042917386",
  }),
  expiresAt: z.string().datetime().openapi({ example: "2026-11-24T12:15:00.000Z" }),
  status: z.literal("invited"),
}).openapi("RemoteInvitation");

const RemoteSessionSchema = z.object({
  id: z.number().int(),
  sessionId: z.number().int(),
  status: z.enum(STATUSES).openapi({
    description: "invited → joined (the customer opened the link) → sharing → ended; expired: " +
      "never joined before expiresAt",
  }),
  invitedVia: z.enum(["portal", "launch", "api"]),
  invitedBy: z.number().int().nullable().openapi({ description: "The agent; null: the API" }),
  createdAt: z.string().datetime(),
  expiresAt: z.string().datetime(),
  joinedAt: z.string().datetime().nullable(),
  consentedAt: z.string().datetime().nullable(),
  firstSharedAt: z.string().datetime().nullable(),
  endedAt: z.string().datetime().nullable(),
  endedBy: z.enum(["agent", "customer", "api", "expiry"]).nullable(),
  durationSeconds: z.number().int().nullable().openapi({
    description: "From joining to the end (or to now); null before joining",
  }),
  sharingSeconds: z.number().int().openapi({ description: "Time the screen was shared" }),
}).openapi("RemoteSession");

const iso = (d: Date | null) => (d ? new Date(d).toISOString() : null);

function view(r: RemoteRow): z.infer<typeof RemoteSessionSchema> {
  return {
    id: r.id,
    sessionId: r.sessionId,
    status: r.status,
    invitedVia: r.invitedVia,
    invitedBy: r.invitedBy,
    createdAt: iso(r.createdAt)!,
    expiresAt: iso(r.expiresAt)!,
    joinedAt: iso(r.joinedAt),
    consentedAt: iso(r.consentedAt),
    firstSharedAt: iso(r.firstSharedAt),
    endedAt: iso(r.endedAt),
    endedBy: r.endedBy,
    durationSeconds: r.durationSeconds,
    sharingSeconds: r.sharingSeconds,
  };
}

/** Builds the remote sub-app (mounted at /api/v1/sessions). */
export function remoteApiRoutes(deps: Deps): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
  const read = requireScope(deps.auth, "sessions:read");
  const write = requireScope(deps.auth, "sessions:write");

  async function scoped(c: Context<AppEnv>, id: number): Promise<void> {
    const row = await sessionJsonById(deps.sql, id);
    if (!row || !inAppScope(await appScope(deps, c), row.appId)) {
      throw new AppError(404, "session_not_found", `Session ${id} not found`);
    }
  }

  app.openapi(
    createRoute({
      method: "post",
      path: "/{id}/remote",
      tags,
      operationId: "createRemoteInvitation",
      summary: "Invite the session's customer to share their screen",
      description: "Also emits the `remote.invited` callback event with `joinUrl` and `code`. " +
        "The link and code work for REMOTE_INVITE_TTL_MINUTES (default 15).",
      security: security("sessions:write"),
      middleware: [write] as const,
      request: { params: IdParam },
      responses: {
        201: jsonResponse(InvitationSchema, "The invitation", ["Location"]),
        ...errorResponses("sessions:write", { input: true, notFound }),
      },
    }),
    async (c) => {
      const { id } = c.req.valid("param");
      await scoped(c, id);
      const invitation = await invite(deps, {
        sessionId: id,
        agentId: null,
        via: "api",
        launchId: null,
      });
      c.header("Cache-Control", "no-store");
      c.header(
        "Location",
        `${publicOrigin(deps.config)}/api/v1/sessions/${id}/remote/${invitation.id}`,
      );
      return c.json(invitation, 201);
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/{id}/remote",
      tags,
      operationId: "listRemoteSessions",
      summary: "List a session's remote sessions, newest first",
      security: security("sessions:read"),
      middleware: [read] as const,
      request: { params: IdParam },
      responses: {
        200: jsonResponse(
          z.object({ items: z.array(RemoteSessionSchema) }).openapi("RemoteSessionList"),
          "The session's remote sessions (at most 100)",
        ),
        ...errorResponses("sessions:read", { input: true, notFound }),
      },
    }),
    async (c) => {
      const { id } = c.req.valid("param");
      await scoped(c, id);
      const rows = await remotesOfSession(deps.sql, id);
      c.header("Cache-Control", "no-store");
      return c.json({ items: rows.map(view) }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/{id}/remote/{remoteId}",
      tags,
      operationId: "getRemoteSession",
      summary: "Read one remote session of a session",
      security: security("sessions:read"),
      middleware: [read] as const,
      request: { params: RemotePathParams },
      responses: {
        200: jsonResponse(RemoteSessionSchema, "The remote session"),
        ...errorResponses("sessions:read", {
          input: true,
          notFound: "No such session in the caller's app (`session_not_found`), or no such " +
            "remote session of it (`remote_not_found`)",
        }),
      },
    }),
    async (c) => {
      const { id, remoteId } = c.req.valid("param");
      await scoped(c, id);
      const row = await remoteById(deps.sql, remoteId);
      if (!row || row.sessionId !== id) {
        throw new AppError(404, "remote_not_found", `Remote session ${remoteId} not found`);
      }
      c.header("Cache-Control", "no-store");
      return c.json(view(row), 200);
    },
  );

  return app;
}
