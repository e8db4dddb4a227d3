/** Database rows as the REST API shows them (ISO times, camelCase, nothing internal). */
import type { LaunchLogRow } from "../../db/queries/launch_log.ts";
import type { AgentRow, CustomerRow } from "../../db/queries/people.ts";
import { maskLaunchPayload } from "../launch/payload_mask.ts";
import type { z } from "@hono/zod-openapi";
import type { LaunchSchema } from "./schemas.ts";

/** A row with its created and updated times as ISO text. */
export function withIsoTimes<R extends { createdAt: Date; updatedAt: Date }>(row: R) {
  return { ...row, createdAt: row.createdAt.toISOString(), updatedAt: row.updatedAt.toISOString() };
}

/** A customer as the API shows it. */
export function customerView(row: CustomerRow) {
  return withIsoTimes(row);
}

/** An agent as the API shows it. */
export function agentView(row: AgentRow) {
  return withIsoTimes(row);
}

/** A launch attempt as the API shows it: its payload masked as the admin screens show it. */
export function launchView(row: LaunchLogRow): z.infer<typeof LaunchSchema> {
  return {
    id: row.id,
    app: row.appName,
    outcome: row.outcome,
    message: row.message,
    agentId: row.agentId,
    sessionId: row.sessionId,
    clientAddress: row.clientAddress,
    userAgent: row.userAgent,
    payload: maskLaunchPayload(row.payload ?? null),
    view: row.view ?? null,
    warnings: row.warnings,
    keyUsed: row.keyUsed ?? null,
    protection: row.protection ?? null,
    errors: row.errors ?? [],
    diagnosis: row.diagnosis ?? null,
    createdAt: row.createdAt.toISOString(),
  };
}
