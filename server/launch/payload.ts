/**
 * The launch payload (spec §2.2, §2.3): one zod schema that validates and normalizes it. Every
 * rule lives here; the flow receives a `LaunchPayload` and never re-checks input.
 */
import { z } from "zod";
import { msg } from "../zod_messages.ts";
import { AppError, fieldErrors } from "../http/errors.ts";
import {
  ALGORITHM,
  contentLanguage,
  FIELD_RULES,
  FLAVORS,
  SEARCH_TYPES,
  type SearchType,
} from "./contract.ts";
import { fieldText, phoneNumber } from "./field_schemas.ts";

const name = fieldText("name");
const email = fieldText("email").transform((v) => v.toLowerCase());
const reference = fieldText("reference");
const phone = phoneNumber;

const flag = z.union(
  [z.boolean(), z.literal(1), z.literal(0), z.enum(["1", "0", "true", "false"])],
  msg("expected true, false, 1 or 0"),
).transform((v) => v === true || v === 1 || v === "1" || v === "true");

const deviceValue = z.union(
  [z.string().max(500, "at most 500 characters"), z.number()],
  msg("expected a string"),
).transform(String);

const COMPUTER_PROPS = [
  "name",
  "os",
  "os_variant",
  "os_arch",
  "os_version",
  "os_lang",
  "os_sp_minor",
  "os_sp_major",
  "host",
  "model",
  "serial",
  "vendor",
  "memory",
  "owner",
  "swap_space",
] as const;
const MOBILE_PROPS = [
  "name",
  "os",
  "serial",
  "serial2",
  "os_sdk",
  "os_build",
  "os_lang",
  "model",
  "manufacturer",
  "brand",
  "cpu",
  "cpu_arch",
  "memory",
] as const;

const avProduct = z.strictObject({
  company: deviceValue.optional(),
  latest: z.union([deviceValue, z.boolean().transform(String)]).optional(),
  name: deviceValue.optional(),
  version: deviceValue.optional(),
});

const deviceComputer = z.strictObject({
  ...Object.fromEntries(COMPUTER_PROPS.map((p) => [p, deviceValue.optional()])),
  av_prods: z.array(avProduct).max(50, "at most 50 products").optional(),
}) as z.ZodType<Record<string, string | Record<string, string>[]>>;

const deviceMobile = z.strictObject(
  Object.fromEntries(MOBILE_PROPS.map((p) => [p, deviceValue.optional()])),
) as z.ZodType<Record<string, string>>;

const searchEntry = z.strictObject({
  search_type: z.enum(SEARCH_TYPES, msg(`expected one of ${SEARCH_TYPES.join(", ")}`)),
  search_values: z.array(z.string(), msg("expected an array of strings")),
}).superRefine((entry, ctx) => {
  const values = entry.search_values;
  if (entry.search_type === "full_text") {
    if (values.length !== 1 || !values[0].trim()) {
      ctx.addIssue({
        code: "custom",
        path: ["search_values"],
        message: "full_text takes exactly one non-empty string",
      });
    }
    return;
  }
  if (values.length === 0) {
    ctx.addIssue({
      code: "custom",
      path: ["search_values"],
      message: "expected at least one value",
    });
  }
  values.forEach((value, i) => {
    if (
      (entry.search_type === "category_uid" || entry.search_type === "path_uid") &&
      !FIELD_RULES.uuid.pattern.test(value)
    ) {
      ctx.addIssue({
        code: "custom",
        path: ["search_values", i],
        message: `expected a UUID in 8-4-4-4-12 form, got "${value}"`,
      });
    }
    if (entry.search_type === "tag" && !value.trim()) {
      ctx.addIssue({ code: "custom", path: ["search_values", i], message: "empty tag" });
    }
  });
}).transform((entry) => ({
  type: entry.search_type,
  values: entry.search_type === "full_text"
    ? [entry.search_values[0].trim()]
    : entry.search_values.map((v) => v.trim().toLowerCase()),
}));

const paths = z.strictObject({
  search: z.array(searchEntry).optional(),
  remote: flag.optional(),
  allPaths: flag.optional(),
}).superRefine((value, ctx) => {
  const seen = new Set<string>();
  value.search?.forEach((entry, i) => {
    if (seen.has(entry.type)) {
      ctx.addIssue({
        code: "custom",
        path: ["search", i, "search_type"],
        message: `${entry.type} appears more than once (at most one entry per search type)`,
      });
    }
    seen.add(entry.type);
  });
  if (!value.remote && !value.search?.length) {
    ctx.addIssue({
      code: "custom",
      path: ["remote"],
      message: "remote false with no search entries is an invalid combination (spec §2.3 rule 4)",
    });
  }
}).transform((value) => ({
  search: value.search ?? [],
  remote: value.remote ?? false,
  allPaths: value.allPaths ?? false,
}));

const team = z.strictObject({
  teamId: fieldText("teamId"),
  teamName: fieldText("teamName"),
});
const locale = fieldText("locale");
const teams = z.array(team).max(50, "at most 50 teams");
const userExtras = z.strictObject({ locale: locale.optional(), teams: teams.optional() });

/** A custom field value: string (at most 2000 characters), number or boolean. */
export const customFieldValue = z.union([
  z.string().max(2000, "at most 2000 characters"),
  z.number(),
  z.boolean(),
], msg("expected a string, number or boolean"));

const sessionId = z.union(
  [z.number().int().positive(), z.string().trim(), z.null()],
  msg("expected a numeric session id"),
).transform((value, ctx) => {
  if (value === null || value === "") return undefined;
  if (typeof value === "number") return value;
  if (!/^\d{1,15}$/.test(value) || Number(value) === 0) {
    ctx.addIssue({ code: "custom", message: "expected a numeric session id (digits only)" });
    return z.NEVER;
  }
  return Number(value);
});

const parameters = z.strictObject({
  target: z.enum(FLAVORS, msg("expected embedded, seesupport or standard")).optional(),
  sessionId: sessionId.optional(),
  referenceId: reference.optional(),
  referenceNumber: reference,
  contactId: reference,
  contactFirstName: name,
  contactLastName: name,
  contactEmail: email,
  contactPhone: phone,
  contactMobile: phone.optional(),
  contactOtherPhone: phone.optional(),
  customFields: z.record(z.string(), customFieldValue).optional(),
  deviceComputer: deviceComputer.optional(),
  deviceMobile: deviceMobile.optional(),
  assign: flag.optional(),
  paths: paths.optional(),
  showSessionStatusChange: flag.optional(),
  showAssignToMeButton: flag.optional(),
  showSessionTransferButton: flag.optional(),
  user: userExtras.optional(),
  "user.locale": locale.optional(),
  "user.teams": teams.optional(),
});

const user = z.strictObject({
  id: z.string().optional(),
  email,
  first_name: name,
  last_name: name,
  phone: phone.optional(),
  locale: locale.optional(),
  teams: teams.optional(),
});

const payloadSchema = z.object({
  algorithm: z.literal(ALGORITHM),
  context: z.object({
    user,
    environment: z.object({ parameters }),
  }),
});

/** A guided-path search entry, normalized (UUIDs and tags lower-cased). */
export interface SearchEntry {
  type: SearchType;
  values: string[];
}

/** The normalized launch payload. */
export interface LaunchPayload {
  agent: {
    externalId: string | null;
    email: string;
    firstName: string;
    lastName: string;
    phone: string | null;
    locale: string | null;
    teams: { teamId: string; teamName: string }[] | null;
  };
  customer: {
    externalId: string;
    email: string;
    firstName: string;
    lastName: string;
    phone1: string;
    phone2: string | null;
    otherPhone: string | null;
  };
  session: {
    id: number | null;
    externalReference: string;
    referenceId: string | null;
    assign: boolean;
    customFields: Record<string, string | number | boolean>;
    devices: { kind: "computer" | "mobile"; properties: Record<string, unknown> }[];
  };
  view: LaunchView;
}

/** How the portal shows this launch; stored on the launch record, not the session. */
export interface LaunchView {
  target: "standard" | "embedded" | "seesupport";
  paths: { search: SearchEntry[]; remote: boolean; allPaths: boolean } | null;
  showSessionStatusChange: boolean;
  showAssignToMeButton: boolean;
  showSessionTransferButton: boolean;
  locale: string;
  language: string;
}

/**
 * Parses a verified payload. An invalid `context.user.id` is 400 `Error evaluating User` (spec §7);
 * any other problem is 400 `Invalid launch payload` listing every error by dotted path.
 *
 * @example
 * ```ts
 * const p = parseLaunchPayload({
 *   algorithm: "HMACSHA256",
 *   context: {
 *     user: { id: "agent42", email: "Ada@Example.com", first_name: "Ada", last_name: "Lovelace" },
 *     environment: {
 *       parameters: {
 *         referenceNumber: "CASE00017",
 *         contactId: "C0099",
 *         contactFirstName: "Grace",
 *         contactLastName: "Hopper",
 *         contactEmail: "grace@example.org",
 *         contactPhone: "+1 (555) 987-6543",
 *       },
 *     },
 *   },
 * });
 * p.agent.email; // "ada@example.com"
 * p.customer.phone1; // "15559876543"
 * p.view.target; // "standard"
 * ```
 */
export function parseLaunchPayload(raw: Record<string, unknown>): LaunchPayload {
  const id = (raw as { context?: { user?: { id?: unknown } } }).context?.user?.id;
  if (id !== undefined && (typeof id !== "string" || !FIELD_RULES.userId.pattern.test(id))) {
    throw new AppError(400, "invalid_user", "Error evaluating User");
  }
  const parsed = payloadSchema.safeParse(raw);
  if (!parsed.success) {
    throw new AppError(
      400,
      "invalid_payload",
      "Invalid launch payload",
      fieldErrors(parsed.error.issues),
    );
  }
  const { user: u, environment: { parameters: p } } = parsed.data.context;
  // Precedence: parameters["user.locale"], then parameters.user.locale, then context.user.locale.
  const loc = p["user.locale"] ?? p.user?.locale ?? u.locale ?? null;
  const teamList = p["user.teams"] ?? p.user?.teams ?? u.teams ?? null;
  const devices: LaunchPayload["session"]["devices"] = [];
  if (p.deviceComputer) devices.push({ kind: "computer", properties: p.deviceComputer });
  if (p.deviceMobile) devices.push({ kind: "mobile", properties: p.deviceMobile });
  return {
    agent: {
      externalId: u.id ?? null,
      email: u.email,
      firstName: u.first_name,
      lastName: u.last_name,
      phone: u.phone ?? null,
      locale: loc,
      teams: teamList,
    },
    customer: {
      externalId: p.contactId,
      email: p.contactEmail,
      firstName: p.contactFirstName,
      lastName: p.contactLastName,
      phone1: p.contactPhone,
      phone2: p.contactMobile ?? null,
      otherPhone: p.contactOtherPhone ?? null,
    },
    session: {
      id: p.sessionId ?? null,
      externalReference: p.referenceNumber,
      referenceId: p.referenceId ?? null,
      assign: p.assign ?? false,
      customFields: p.customFields ?? {},
      devices,
    },
    view: {
      target: p.target ?? "standard",
      paths: p.paths ?? null,
      showSessionStatusChange: p.showSessionStatusChange ?? true,
      showAssignToMeButton: p.showAssignToMeButton ?? true,
      showSessionTransferButton: p.showSessionTransferButton ?? true,
      locale: loc ?? "en",
      language: contentLanguage(loc),
    },
  };
}
