/** Zod schemas of the REST resources: they validate requests and generate the OpenAPI document. */
import { z } from "@hono/zod-openapi";
import { customFieldValue } from "../launch/payload_schema.ts";
import { msg } from "../zod_messages.ts";
import { OrganizationSlugSchema } from "../admin/schemas.ts";

/** A numeric id in a path (`/sessions/{id}`). */
export const IdParam = z.object({
  id: z.string().regex(/^[1-9][0-9]{0,14}$/, "expected a numeric id").transform(Number)
    .openapi({ param: { name: "id", in: "path" }, example: "42", type: "string" }),
});

/** If-None-Match of a GET answering an ETag. */
export const ConditionalHeaders = z.object({
  "If-None-Match": z.string().optional().openapi({
    description: "The ETag of a previous answer: 304 with no body while unchanged",
    example: '"8f14e45fceea167a"',
  }),
});

/** `?app=<appName>` of a list: admin clients narrow it to one app. */
export const AppQuery = {
  app: z.string().max(64).optional().openapi({
    description: "Admin clients: only this app's rows (404 `app_not_found` when no app has " +
      "this App Name); an app's own client sees its app only",
    example: "crm",
  }),
};

/** Page size and cursor of every list. */
export const PageQuery = {
  limit: z.coerce.number(msg("expected a whole number from 1 to 200")).int(
    "expected a whole number from 1 to 200",
  ).min(1, "expected a whole number from 1 to 200").max(
    200,
    "at most 200 (ask for the next page with cursor)",
  ).default(50).openapi({ description: "Items per page (1-200, default 50)", example: 50 }),
  cursor: z.string().max(200).optional().openapi({
    description: "The nextCursor of the previous page; omit it for the first page",
  }),
};

/** `?organization=<slug>` of a list: admin clients only (an app's client gets 400). */
export const OrganizationQuery = {
  organization: OrganizationSlugSchema.optional().openapi({
    description: "Admin clients: only the rows of this organization (its apps' rows; agents " +
      "and users of the organization itself). An unknown slug is 400; an app's client, which " +
      "sees its own app only, gets 400 too",
    example: "default",
  }),
};

const Timestamp = z.string().openapi({ example: "2026-11-22T09:30:00.000Z" });
/**
 * A date-time filter: ISO 8601 with its offset, in years 1 to 9999 once in UTC (JavaScript reads
 * year 0, which PostgreSQL's timestamps have no spelling for).
 */
const Since = z.iso.datetime({ offset: true, error: "expected an ISO 8601 date-time" }).refine(
  (value) => {
    const year = new Date(value).getUTCFullYear();
    // Not a date at all: the format's error above says so, once.
    return Number.isNaN(year) || (year >= 1 && year <= 9999);
  },
  { error: "expected a date-time from the year 0001 to 9999 (in UTC)" },
);

const Person = {
  id: z.number().int().openapi({ example: 7 }),
  externalId: z.string().nullable().openapi({ example: "agent42" }),
  email: z.string().openapi({ example: "ada@example.com" }),
  firstName: z.string().openapi({ example: "Ada" }),
  lastName: z.string().openapi({ example: "Lovelace" }),
};

/** A customer. */
export const CustomerSchema = z.object({
  ...Person,
  externalId: z.string().nullable().openapi({ example: "C0099" }),
  email: z.string().openapi({ example: "grace@example.org" }),
  firstName: z.string().openapi({ example: "Grace" }),
  lastName: z.string().openapi({ example: "Hopper" }),
  phone1: z.string().nullable().openapi({ example: "5559876543" }),
  phone2: z.string().nullable(),
  otherPhone: z.string().nullable(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
}).openapi("Customer");

/** An agent with its teams. */
export const AgentSchema = z.object({
  ...Person,
  organization: z.string().openapi({ description: "The slug of the agent's organization" }),
  phone: z.string().nullable(),
  locale: z.string().nullable().openapi({ example: "fr-CA" }),
  teams: z.array(z.object({ teamId: z.string(), teamName: z.string() })).openapi({
    example: [{ teamId: "T1", teamName: "Tier 1" }],
  }),
  createdAt: Timestamp,
  updatedAt: Timestamp,
}).openapi("Agent");

/** A session with its customer, assignee, custom fields, devices and path runs. */
export const SessionSchema = z.object({
  id: z.number().int().openapi({ example: 42 }),
  status: z.enum(["open", "closed"]),
  externalReference: z.string().nullable().openapi({ example: "CASE00017" }),
  referenceId: z.string().nullable().openapi({ example: "R-1" }),
  target: z.enum(["standard", "embedded", "seesupport"]).openapi({
    description: "The UI flavor of the launch that created the session",
  }),
  assignee: z.object(Person).nullable(),
  customer: CustomerSchema.omit({ createdAt: true, updatedAt: true }),
  customFields: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).openapi({
    example: { priority: "high" },
  }),
  devices: z.array(z.object({
    id: z.number().int(),
    kind: z.enum(["computer", "mobile"]),
    properties: z.record(z.string(), z.unknown()),
  })).openapi({ example: [{ id: 3, kind: "computer", properties: { name: "PC", serial: "S1" } }] }),
  pathRuns: z.array(z.object({
    pathUid: z.string(),
    title: z.string(),
    ranAt: Timestamp,
    agentId: z.number().int().nullable(),
  })),
  createdAt: Timestamp,
  updatedAt: Timestamp,
}).openapi("Session");

/** GET /sessions query. */
export const SessionListQuery = z.object({
  status: z.enum(["open", "closed"], msg("expected open or closed")).optional(),
  externalReference: z.string().max(200).optional().openapi({ example: "CASE00017" }),
  referenceId: z.string().max(200).optional(),
  customerExternalId: z.string().max(200).optional().openapi({ example: "C0099" }),
  assigneeId: z.string().regex(/^[1-9][0-9]{0,14}$/, "expected an agent's numeric id")
    .transform(Number).optional().openapi({ type: "string", example: "7" }),
  updatedSince: Since.optional().openapi({
    description: "Only sessions updated at or after this time",
    example: "2026-11-01T00:00:00Z",
  }),
  ...AppQuery,
  ...OrganizationQuery,
  ...PageQuery,
});

/** PATCH /sessions/{id} body. */
export const SessionPatchSchema = z.strictObject({
  status: z.enum(["open", "closed"], msg("expected open or closed")).optional(),
  assigneeId: z.number(msg("expected an agent's numeric id, or null to unassign")).int(
    "expected an agent's numeric id",
  ).positive("expected an agent's numeric id").nullable().optional(),
  customFields: z.record(z.string(), customFieldValue.nullable()).optional().openapi({
    description: "Values to set (configured custom fields only); null removes a field",
    example: { priority: "low" },
  }),
}).refine((v) => Object.keys(v).length > 0, "send at least one of status, assigneeId, customFields")
  .openapi("SessionPatch");

/** GET /customers and GET /agents query. */
export const PeopleQuery = z.object({
  email: z.string().max(320).optional().openapi({ example: "grace@example.org" }),
  externalId: z.string().max(200).optional(),
  ...AppQuery,
  ...OrganizationQuery,
  ...PageQuery,
});

/** One launch attempt of the audit log. */
export const LaunchSchema = z.object({
  id: z.number().int(),
  app: z.string().openapi({ example: "crm" }),
  outcome: z.string().openapi({ description: "ok, or the error code", example: "ok" }),
  message: z.string().nullable(),
  agentId: z.number().int().nullable(),
  sessionId: z.number().int().nullable(),
  clientAddress: z.string().nullable(),
  userAgent: z.string().nullable(),
  payload: z.unknown().openapi({
    description: "The decoded payload (null when the signature failed), with the value of every " +
      "secret-looking key (password, secret, token, apiKey, signature, authorization, at any " +
      'depth) replaced by "••••••", as the admin screens show it',
  }),
  view: z.unknown().openapi({ description: "The launch's view options" }),
  warnings: z.array(
    z.object({ path: z.string(), code: z.string(), message: z.string() }).catchall(z.unknown()),
  ).openapi({
    description: "What the launch ignored, repaired or resolved (ignored_field, " +
      "signed_request_repaired, agent_email_in_use, customer_external_id_differs, " +
      "customer_external_id_in_use, customer_email_in_use), with the ids involved",
  }),
  keyUsed: z.enum(["current", "previous"]).nullable().openapi({
    description: "Which of the app's signing keys verified it (null: none did, or the launch " +
      "failed before)",
  }),
  protection: z.enum(["protected", "unprotected", "off"]).nullable().openapi({
    description: "Its replay protection: protected (issuedAt checked, single use), " +
      "unprotected (accepted without issuedAt under `optional`), off (the app checks none); " +
      "null: the launch failed before",
  }),
  errors: z.array(z.object({ path: z.string(), code: z.string(), message: z.string() }))
    .openapi({ description: "A refused launch's field errors (empty for an accepted one)" }),
  diagnosis: z.object({
    signature: z.enum(["valid", "invalid", "malformed"]),
    causes: z.array(z.string()),
  }).nullable().openapi({
    description: "A refused launch's signed_request as the Inspector diagnoses it: whether its " +
      "signature verified and the likely causes when it did not (null: accepted, or no " +
      "signed_request was read)",
  }),
  createdAt: Timestamp,
}).openapi("Launch");

/** GET /launches query. */
export const LaunchListQuery = z.object({
  ...AppQuery,
  outcome: z.string().max(64).optional().openapi({ example: "invalid_signature" }),
  since: Since.optional().openapi({ example: "2026-11-01T00:00:00Z" }),
  warnings: z.enum(["true", "false"]).optional().openapi({
    description: "true: only launches that recorded warnings",
  }),
  ...OrganizationQuery,
  ...PageQuery,
});

/** A page of items with the cursor of the next one (null on the last page). */
export function pageOf<T extends z.ZodType>(item: T, name: string) {
  return z.object({
    items: z.array(item),
    nextCursor: z.string().nullable().openapi({
      description: "Pass as cursor for the next page; null on the last page",
    }),
  }).openapi(name);
}
