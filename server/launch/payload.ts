/**
 * The launch payload (spec §2.2, §2.3) as the flow receives it: cleaned (blanks and unknown keys
 * dropped, with warnings; payload_cleaner.ts), validated and normalized by one zod schema
 * (payload_schema.ts). The flow never re-checks input.
 */
import type { LaunchAgentFields, LaunchCustomerFields } from "../../db/queries/launch.ts";
import { AppError, fieldErrors } from "../http/errors.ts";
import { textFieldError, unstorableText } from "../http/nul.ts";
import { contentLanguage, FIELD_RULES, type SearchType } from "./contract.ts";
import { type LaunchWarning, payloadCleaner } from "./payload_cleaner.ts";
import { payloadSchema } from "./payload_schema.ts";
import { zodMessages } from "../zod_messages.ts";

export type { LaunchWarning } from "./payload_cleaner.ts";

const cleanPayload = payloadCleaner(payloadSchema);

/** A guided-path search entry, normalized (UUIDs and tags lower-cased). */
export interface SearchEntry {
  type: SearchType;
  values: string[];
}

/** The normalized launch payload. */
export interface LaunchPayload {
  agent: LaunchAgentFields & { teams: { teamId: string; teamName: string }[] | null };
  customer: LaunchCustomerFields;
  session: {
    /** An existing session's id; a new session when null. */
    id: number | null;
    externalReference: string;
    referenceId: string | null;
    assign: boolean;
    customFields: Record<string, string | number | boolean>;
    devices: { kind: "computer" | "mobile"; properties: Record<string, unknown> }[];
  };
  view: LaunchView;
  /** The replay-protection fields, when the sender gave them. */
  freshness: { issuedAt: Date | null; nonce: string | null };
  /** What was ignored or repaired on the way (never a refusal). */
  warnings: LaunchWarning[];
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
 * U+0000 or half a surrogate pair anywhere in a payload (its ignored keys and a CRM's own shape
 * too: the launch log keeps them) is refused, naming the field, as on every input path.
 */
export function refuseUnstorableText(raw: unknown): void {
  const at = unstorableText(raw);
  if (at) {
    throw new AppError(400, "invalid_payload", "Invalid launch payload", [textFieldError(at)]);
  }
}

/**
 * Parses a verified payload. Blank values mean "not given" and unknown keys are dropped, each
 * reported in `warnings`. An invalid `context.user.id` is 400 `Error evaluating User` (spec §7);
 * a `sessionId` too large to be any session's is 404 like an unknown session; any other problem
 * is 400 `Invalid launch payload` listing every error by dotted path.
 *
 * @example
 * ```ts
 * const p = parseLaunchPayload({
 *   algorithm: ALGORITHM, // from contract.ts
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
  refuseUnstorableText(raw);
  const { value, warnings } = cleanPayload(raw);
  const id = (value as { context?: { user?: { id?: unknown } } }).context?.user?.id;
  if (
    id !== undefined &&
    (!(typeof id === "string" || typeof id === "number") ||
      !FIELD_RULES.reference.pattern.test(String(id).trim()))
  ) {
    throw new AppError(400, "invalid_user", "Error evaluating User");
  }
  const parsed = payloadSchema.safeParse(value, { error: zodMessages });
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
      id: p.sessionId === undefined ? null : existingSessionId(p.sessionId),
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
    freshness: { issuedAt: parsed.data.issuedAt ?? null, nonce: parsed.data.nonce ?? null },
    warnings,
  };
}

/** A session id as a number; one beyond any session's is an unknown session (404). */
function existingSessionId(digits: string): number {
  const id = Number(digits);
  if (!Number.isSafeInteger(id)) {
    throw new AppError(404, "session_not_found", `Session ${digits} not found`);
  }
  return id;
}
