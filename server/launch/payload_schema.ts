/**
 * The zod schema of the launch payload (spec §2.2, §2.3), built from the contract's field rules.
 * It sees the payload after payload_cleaner.ts dropped blanks and unknown keys, so its objects are
 * strict: a key it does not list never reaches it.
 */
import { z } from "zod";
import { msg } from "../zod_messages.ts";
import {
  ALGORITHM,
  FIELD_RULES,
  FLAVORS,
  FRESHNESS,
  PAYLOAD_LIMITS,
  SEARCH_TYPES,
} from "./contract.ts";
import { fieldText, phoneNumber } from "./field_schemas.ts";

const name = fieldText("name");
const email = fieldText("email").transform((v) => v.toLowerCase());
/** External ids: a string, or a JSON number taken as its decimal text. */
const reference = z.union([z.string(), z.number()], msg(FIELD_RULES.reference.message))
  .transform(String).pipe(fieldText("reference"));
const phone = phoneNumber;

const flag = z.union(
  [z.boolean(), z.literal(1), z.literal(0), z.enum(["1", "0", "true", "false"])],
  msg("expected true, false, 1 or 0"),
).transform((v) => v === true || v === 1 || v === "1" || v === "true");

const deviceValue = z.union(
  [
    z.string().max(
      PAYLOAD_LIMITS.deviceValue,
      `at most ${PAYLOAD_LIMITS.deviceValue} characters`,
    ),
    z.number(),
  ],
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
  av_prods: z.array(avProduct).max(
    PAYLOAD_LIMITS.avProducts,
    `at most ${PAYLOAD_LIMITS.avProducts} products`,
  ).optional(),
}) as z.ZodType<Record<string, string | Record<string, string>[]>>;

const deviceMobile = z.strictObject(
  Object.fromEntries(MOBILE_PROPS.map((p) => [p, deviceValue.optional()])),
) as z.ZodType<Record<string, string>>;

const searchEntry = z.strictObject({
  search_type: z.enum(SEARCH_TYPES, msg(`expected one of ${SEARCH_TYPES.join(", ")}`)),
  search_values: z.array(
    z.string().max(PAYLOAD_LIMITS.searchText, `at most ${PAYLOAD_LIMITS.searchText} characters`),
    msg("expected an array of strings"),
  ).max(PAYLOAD_LIMITS.searchValues, `at most ${PAYLOAD_LIMITS.searchValues} values`),
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
/** Teams; a repeated teamId is one team, with the last name given. */
const teams = z.array(team).max(PAYLOAD_LIMITS.teams, `at most ${PAYLOAD_LIMITS.teams} teams`)
  .transform((list) => [...new Map(list.map((t) => [t.teamId, t])).values()]);
const userExtras = z.strictObject({ locale: locale.optional(), teams: teams.optional() });

/** A custom field value: string (at most 2000 characters), number or boolean. */
export const customFieldValue = z.union([
  z.string().max(
    PAYLOAD_LIMITS.customFieldValue,
    `at most ${PAYLOAD_LIMITS.customFieldValue} characters`,
  ),
  z.number(),
  z.boolean(),
], msg("expected a string, number or boolean"));

/**
 * sessionId: a positive whole number, as a JSON number or digits. Its decimal text is kept, so an
 * id beyond any session's (e.g. 20 digits) is an unknown session, not an overflow.
 */
const sessionId = z.union(
  [z.number(), z.string().trim()],
  msg("expected a numeric session id"),
).transform((value, ctx) => {
  const whole = typeof value === "number" && Number.isInteger(value) && value > 0;
  const text = typeof value === "number"
    ? (whole ? BigInt(value).toString() : "")
    : value.replace(/^0+(?=\d)/, "");
  if (!/^\d{1,40}$/.test(text) || /^0+$/.test(text)) {
    ctx.addIssue({ code: "custom", message: "expected a numeric session id (digits only)" });
    return z.NEVER;
  }
  return text;
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
  customFields: z.record(z.string().max(64, "at most 64 characters"), customFieldValue).refine(
    (fields) => Object.keys(fields).length <= PAYLOAD_LIMITS.customFields,
    `at most ${PAYLOAD_LIMITS.customFields} custom fields`,
  ).optional(),
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
  id: reference.optional(),
  email,
  first_name: name,
  last_name: name,
  phone: phone.optional(),
  locale: locale.optional(),
  teams: teams.optional(),
});

/** issuedAt: Unix time in seconds, or in milliseconds above 10^12; a number or digits. */
const issuedAt = z.union([z.number(), z.string().trim()], msg("expected Unix time"))
  .transform((value, ctx) => {
    const n = typeof value === "number" ? value : /^\d{1,16}$/.test(value) ? Number(value) : NaN;
    const date = new Date(n > FRESHNESS.millisecondsAbove ? n : n * 1000);
    if (!Number.isInteger(n) || n <= 0 || Number.isNaN(date.getTime())) {
      ctx.addIssue({
        code: "custom",
        message: "expected Unix time in seconds (or milliseconds), a positive whole number",
      });
      return z.NEVER;
    }
    return date;
  });

/** The whole payload. */
export const payloadSchema = z.strictObject({
  algorithm: z.literal(ALGORITHM),
  issuedAt: issuedAt.optional(),
  nonce: fieldText("nonce").optional(),
  context: z.strictObject({
    user,
    environment: z.strictObject({ parameters }),
  }),
});
