/** Zod schemas of the admin API: they validate requests and generate the OpenAPI document. */
import { FRESHNESS, REPLAY_POLICIES } from "../launch/contract.ts";
import { frameAncestorProblem } from "../http/frame_ancestors.ts";
import { z } from "@hono/zod-openapi";
import { msg } from "../zod_messages.ts";
import { SCOPES } from "../oauth/scopes.ts";
import { FIELD_RULES } from "../launch/contract.ts";
import { CALLBACK_METHODS, EVENT_TYPES, TOKEN_AUTH_METHODS } from "../callbacks/contract.ts";

const SUBSCRIBABLE = EVENT_TYPES.filter((t) => t !== "ping") as [string, ...string[]];
const CallbackUrlText = z.string().trim().min(1, "required").max(2000, "at most 2000 characters");

/** Authentication types (spec §2.1). */
export const AUTH_TYPES = ["signed_request", "oauth2_signed_request"] as const;

/** Implementor classes (spec §2.1) and their labels. */
export const IMPLEMENTORS = {
  default: "Default (any application other than the two CRMs below)",
  crm_standard: "CRM connector (OAuth 2.0)",
  crm_v6_5: "CRM connector, version 6.5",
} as const;

const implementorIds = Object.keys(IMPLEMENTORS) as [keyof typeof IMPLEMENTORS];

/** App Name: the last segment of the launch URL. */
export const AppNameSchema = z.string().regex(
  /^[A-Za-z0-9._-]{1,64}$/,
  "expected 1-64 characters of letters, digits, '-', '_' and '.'",
).openapi({ example: "crm" });

/** A shared secret typed by an administrator (API key, consumer secret). */
const SecretText = z.string().regex(
  /^[\x21-\x7e]{16,256}$/,
  "expected 16-256 printable ASCII characters without spaces (or omit it to generate one)",
);

/** An origin allowed to embed the portal in a frame; `*.` allows subdomains. */
export const FrameAncestorSchema = z.string().superRefine(async (entry, ctx) => {
  // One rule for the API and the screens: https only (http for loopback), sane wildcards. Async
  // (the Public Suffix List loads at the first wildcard): parse apps with safeParseAsync.
  const problem = await frameAncestorProblem(entry);
  if (problem) ctx.addIssue({ code: "custom", message: problem });
});

/** An organization's slug: 2-63 of lowercase letters, digits and '-', not starting with '-'. */
export const OrganizationSlugSchema = z.string(msg("expected an organization's slug")).regex(
  /^[a-z0-9][a-z0-9-]{1,62}$/,
  "expected 2-63 lowercase letters, digits and '-' (not starting with '-')",
).openapi({ example: "acme" });

const OrganizationNameSchema = z.string(msg("expected a name")).trim().min(1, "required")
  .max(200, "at most 200 characters").openapi({ example: "Acme Inc." });

/** POST /admin/organizations body. */
export const CreateOrganizationSchema = z.strictObject({
  slug: OrganizationSlugSchema,
  name: OrganizationNameSchema,
}).openapi("CreateOrganization");

/** PATCH /admin/organizations/{slug} body. */
export const UpdateOrganizationSchema = z.strictObject({ name: OrganizationNameSchema })
  .openapi("UpdateOrganization");

/** An organization as the admin API shows it. */
export const OrganizationSchema = z.object({
  slug: z.string().openapi({ example: "acme" }),
  name: z.string().openapi({ example: "Acme Inc." }),
  createdAt: z.string().openapi({ example: "2026-11-22T09:30:00.000Z" }),
}).openapi("Organization");

const appFields = {
  appName: AppNameSchema,
  organization: OrganizationSlugSchema.openapi({
    description: "The slug of the organization that owns the app (default `default`). Moving " +
      "an app that has sessions is refused (409 `app_has_sessions`)",
  }),
  name: z.string().trim().min(1, "required").max(200, "at most 200 characters")
    .openapi({ example: "Acme CRM" }),
  authType: z.enum(AUTH_TYPES, msg(`expected one of ${AUTH_TYPES.join(", ")}`)),
  apiKey: SecretText.openapi({ description: "Generated (32 characters) when omitted" }),
  consumerKey: z.string().trim().min(1, "required").max(256, "at most 256 characters"),
  consumerSecret: SecretText,
  implementor: z.enum(implementorIds, msg(`expected one of ${implementorIds.join(", ")}`)),
  replayProtection: z.enum(
    REPLAY_POLICIES,
    msg(`expected one of ${REPLAY_POLICIES.join(", ")}`),
  ).openapi({
    description: "required (default): issuedAt within maxAgeSeconds and single-use; optional: " +
      "checked when issuedAt is sent; off: no checks (unsafe: a captured request launches again)",
  }),
  maxAgeSeconds: z.number(msg("expected a whole number of seconds")).int(
    "expected a whole number of seconds",
  ).min(FRESHNESS.minMaxAgeSeconds, `at least ${FRESHNESS.minMaxAgeSeconds}`).max(
    FRESHNESS.maxMaxAgeSeconds,
    `at most ${FRESHNESS.maxMaxAgeSeconds}`,
  ).openapi({ description: "How old issuedAt may be (default 300)" }),
  frameAncestors: z.array(FrameAncestorSchema).max(50, "at most 50 origins"),
  enabled: z.boolean(),
  clientScopes: z.array(z.enum(SCOPES)).min(1, "at least one scope").openapi({
    description: "Scopes the app's API client may request (default sessions:read sessions:write)",
  }),
  callbackUrl: CallbackUrlText.nullable().openapi({
    description: "Where events are sent; {referenceId} (URL-encoded), {webhookId} and, for " +
      "crm_standard, {instanceUrl} (only at the very start: {instanceUrl}/path) are replaced. " +
      "https:// and public addresses only (unless " +
      "CALLBACK_ALLOW_PRIVATE_NETWORKS=true); null: no callbacks",
  }),
  callbackMethod: z.enum(CALLBACK_METHODS, msg(`expected one of ${CALLBACK_METHODS.join(", ")}`))
    .openapi({ description: "POST (default), PUT or PATCH" }),
  callbackEvents: z.array(z.enum(SUBSCRIBABLE, msg(`expected one of ${SUBSCRIBABLE.join(", ")}`)))
    .nullable().openapi({ description: "The event types sent; null or omitted: all" }),
  tokenUrl: CallbackUrlText.nullable().openapi({
    description: "oauth2_signed_request apps: the CRM's OAuth 2.0 token endpoint; callbacks " +
      "carry a client-credentials Bearer token from it",
  }),
  tokenAuthMethod: z.enum(
    TOKEN_AUTH_METHODS,
    msg(`expected one of ${TOKEN_AUTH_METHODS.join(", ")}`),
  ).openapi({ description: "client_secret_basic (default) or client_secret_post" }),
};

/** POST /admin/apps body. */
export const CreateAppSchema = z.strictObject({
  appName: appFields.appName,
  name: appFields.name,
  organization: appFields.organization.optional(),
  authType: appFields.authType,
  apiKey: appFields.apiKey.optional(),
  consumerKey: appFields.consumerKey.optional(),
  consumerSecret: appFields.consumerSecret.optional(),
  implementor: appFields.implementor.optional(),
  replayProtection: appFields.replayProtection.optional(),
  maxAgeSeconds: appFields.maxAgeSeconds.optional(),
  frameAncestors: appFields.frameAncestors.optional(),
  enabled: appFields.enabled.optional(),
  clientScopes: appFields.clientScopes.optional(),
  callbackUrl: appFields.callbackUrl.optional(),
  callbackMethod: appFields.callbackMethod.optional(),
  callbackEvents: appFields.callbackEvents.optional(),
  tokenUrl: appFields.tokenUrl.optional(),
  tokenAuthMethod: appFields.tokenAuthMethod.optional(),
}).openapi("CreateApp");

/** PATCH /admin/apps/:appName body. */
export const UpdateAppSchema = CreateAppSchema.partial().openapi("UpdateApp");

/** An app as the admin API shows it. */
export const AppSchema = z.object({
  appName: z.string(),
  name: z.string(),
  organization: z.string().openapi({ description: "The slug of the organization owning it" }),
  authType: z.enum(AUTH_TYPES),
  implementor: z.enum(implementorIds),
  replayProtection: z.enum(REPLAY_POLICIES),
  maxAgeSeconds: z.number().int(),
  signingKeys: z.object({
    currentLastUsedAt: z.string().nullable(),
    previousExpiresAt: z.string().nullable(),
    previousLastUsedAt: z.string().nullable(),
  }).openapi({ description: "When each signing key last verified a launch" }),
  frameAncestors: z.array(z.string()),
  enabled: z.boolean(),
  callbackUrl: z.string().nullable(),
  callbackMethod: z.enum(CALLBACK_METHODS),
  callbackEvents: z.array(z.string()),
  tokenUrl: z.string().nullable(),
  tokenAuthMethod: z.enum(TOKEN_AUTH_METHODS),
  callbackSecret: z.string().nullable().openapi({
    description: "Standard Webhooks signing secret (whsec_...); in full only when created or " +
      "rotated, masked in every other answer",
  }),
  callbackSecretPreviousExpiresAt: z.string().nullable(),
  apiKey: z.string().nullable(),
  consumerKey: z.string().nullable(),
  consumerSecret: z.string().nullable(),
  clientId: z.string(),
  clientScopes: z.array(z.string()),
  launchUrl: z.string(),
  template: z.record(z.string(), z.unknown()),
  createdAt: z.string(),
  updatedAt: z.string(),
}).openapi("App");

/** An app with its client secret, shown once. */
export const AppWithSecretSchema = AppSchema.extend({ clientSecret: z.string() }).openapi(
  "AppWithClientSecret",
);

/** PUT /admin/field-settings body and response. */
export const FieldSettingsSchema = z.strictObject({
  session: z.strictObject({ externalSessionId: z.boolean() }),
  consumer: z.strictObject({ externalCustomerId: z.boolean() }),
}).openapi("FieldSettings");

/** Custom field names: what launches send in customFields. */
export const CustomFieldNameSchema = z.string().regex(
  /^[A-Za-z][A-Za-z0-9_]{0,63}$/,
  "expected a letter then up to 63 letters, digits or '_'",
);

/** POST /admin/custom-fields body. */
export const CreateCustomFieldSchema = z.strictObject({
  name: CustomFieldNameSchema.openapi({ example: "priority" }),
  label: z.string().trim().min(1, "required").max(200, "at most 200 characters").optional(),
}).openapi("CreateCustomField");

/** A UUID in 8-4-4-4-12 hexadecimal form (the contract's rule), normalized to lower case. */
export const UuidSchema = z.string().regex(FIELD_RULES.uuid.pattern, FIELD_RULES.uuid.message)
  .transform((v) => v.toLowerCase());

/** POST /admin/path-categories body. */
export const CreateCategorySchema = z.strictObject({
  uid: UuidSchema.optional(),
  name: z.string().trim().min(1, "required").max(200, "at most 200 characters"),
}).openapi("CreateCategory");

/** PATCH /admin/path-categories/:uid body. */
export const UpdateCategorySchema = z.strictObject({
  name: z.string().trim().min(1, "required").max(200, "at most 200 characters"),
}).openapi("UpdateCategory");

const StepSchema = z.strictObject({
  title: z.string().trim().min(1, "required").max(200, "at most 200 characters"),
  body: z.string().max(10_000, "at most 10000 characters").default(""),
});

const TagSchema = z.string().trim().min(1, "required").max(64, "at most 64 characters")
  .transform((v) => v.toLowerCase());

/** A language code: two or three lowercase letters (ISO 639). */
export const LanguageSchema = z.string().regex(/^[a-z]{2,3}$/, "expected a language code like fr");

const pathFields = {
  uid: UuidSchema,
  title: z.string().trim().min(1, "required").max(200, "at most 200 characters"),
  categoryUid: UuidSchema,
  tags: z.array(TagSchema).max(50, "at most 50 tags"),
  published: z.boolean(),
  steps: z.array(StepSchema).max(100, "at most 100 steps"),
  translations: z.record(
    LanguageSchema,
    z.strictObject({
      title: z.string().trim().min(1, "required").max(200, "at most 200 characters"),
      steps: z.array(StepSchema).max(100, "at most 100 steps").optional(),
    }),
  ),
};

/** POST /admin/paths body. */
export const CreatePathSchema = z.strictObject({
  uid: pathFields.uid.optional(),
  title: pathFields.title,
  categoryUid: pathFields.categoryUid,
  tags: pathFields.tags.default([]),
  published: pathFields.published.default(false),
  steps: pathFields.steps.default([]),
  translations: pathFields.translations.default({}),
}).openapi("CreatePath");

/** PATCH /admin/paths/:uid body. */
export const UpdatePathSchema = z.strictObject({
  title: pathFields.title.optional(),
  categoryUid: pathFields.categoryUid.optional(),
  tags: pathFields.tags.optional(),
  published: pathFields.published.optional(),
  steps: pathFields.steps.optional(),
  translations: pathFields.translations.optional(),
}).openapi("UpdatePath");

/** PUT /admin/agents/{id}/password body. */
export const AgentPasswordSchema = z.strictObject({
  password: z.string(msg("expected a password")).min(12, "at least 12 characters").max(
    200,
    "at most 200 characters",
  ),
}).openapi("AgentPassword");

/** PATCH /admin/users/{id} body. */
export const UserAccessSchema = z.strictObject({
  disabled: z.boolean(msg("expected true (disable the user) or false (enable)")),
}).openapi("UserAccess");

/** A user's access as the admin API returns it. */
export const UserAccessStateSchema = z.object({
  id: z.number().int(),
  role: z.enum(["agent", "admin"]),
  organization: z.string().nullable().openapi({
    description: "An agent's organization (slug); null for an administrator (they are global)",
  }),
  email: z.string(),
  disabled: z.boolean(),
  disabledAt: z.string().nullable().openapi({ description: "When the user was disabled" }),
  loginsEnded: z.number().int().openapi({
    description: "Live logins this request ended (all of them when it disabled the user)",
  }),
}).openapi("UserAccessState");
