/**
 * The one table from a launch refusal to its answer: HTTP status, message and field path. The
 * SQL function launch_apply (db/functions/launch_apply.sql) is the launch's only decider: it
 * reports every refusal it finds as one list, in the order the table lists the codes. This module
 * only words that list; it makes no decision of its own.
 */
import type { LaunchRefusal } from "../../db/queries/launch.ts";
import { AppError, type FieldError } from "../http/errors.ts";
import { replayed } from "./freshness.ts";

const PARAMS = "context.environment.parameters";

/** How one refusal code is answered. */
interface RefusalRule {
  status: 400 | 401 | 403 | 404 | 409;
  /** The answer's message when this code is the first refusal (`all`: those of this code). */
  message(all: LaunchRefusal[]): string;
  /** The field one refusal is about, or null when it is about no field of the payload. */
  field(r: LaunchRefusal): FieldError | null;
  /**
   * Whether its field errors are listed when it is the only code refused. A lone refusal of a
   * code that is false answers the bare `{code, message}` the protocol documents; beside other
   * codes, its field is listed with theirs.
   */
  listedAlone: boolean;
}

const SEARCH_MISS: Record<string, string> = {
  category_uid: "no such category (unknown or deleted)",
  path_uid: "no such published path (unknown, deleted or unpublished)",
  tag: "no published path has this tag",
};

const ID_FIELDS: Record<string, string> = {
  externalSessionId: "the external session id field (Session Data)",
  externalCustomerId: "the external customer id field (Consumer Data)",
};

/** Every refusal launch_apply reports, in the order it reports them (first: the answer's code). */
export const REFUSALS = {
  launch_replayed: {
    status: 401,
    message: () => replayed().message,
    field: () => null,
    listedAlone: false,
  },
  field_disabled: {
    status: 409,
    message: (all) =>
      `Enable ${all.map((r) => ID_FIELDS[String(r.value)]).join(" and ")} in the ` +
      "administrator's field settings: launches store referenceNumber and contactId there",
    field: () => null,
    listedAlone: false,
  },
  session_not_found: {
    status: 404,
    message: ([r]) => `Session ${r.value} not found`,
    field: (r) => ({
      path: `${PARAMS}.sessionId`,
      message: `${r.value}: no session of this app has this id`,
    }),
    listedAlone: false,
  },
  unknown_custom_fields: {
    status: 400,
    message: (all) => `Custom fields not configured: ${all.map((r) => r.value).join(", ")}`,
    field: (r) => ({
      path: `${PARAMS}.customFields.${r.value}`,
      message: "not configured in the custom-fields setup",
    }),
    listedAlone: true,
  },
  invalid_paths: {
    status: 400,
    message: () => "Invalid or no longer valid guided-path search values",
    field: (r) => ({
      path: `${PARAMS}.paths.search.${r.entry}.search_values.${r.index}`,
      message: `${r.value}: ${SEARCH_MISS[String(r.type)]}`,
    }),
    listedAlone: true,
  },
  agent_is_admin: {
    status: 403,
    message: ([r]) =>
      `${r.value} belongs to an administrator of the portal; a launch can only log in ` +
      "agents. Use an agent's e-mail and id in context.user",
    field: () => ({ path: "context.user.email", message: "belongs to an administrator" }),
    listedAlone: true,
  },
  agent_disabled: {
    status: 403,
    message: ([r]) =>
      `The agent ${r.value} is disabled, so no launch can log them in. An administrator can ` +
      "enable the agent again on the admin screens (Users) or with " +
      "PATCH /api/v1/admin/users/{id}",
    field: () => ({ path: "context.user", message: "names a disabled agent" }),
    listedAlone: true,
  },
} satisfies Record<string, RefusalRule>;

/** A refusal code launch_apply reports. */
export type RefusalCode = keyof typeof REFUSALS;

function ruleOf(code: string): RefusalRule {
  if (!Object.hasOwn(REFUSALS, code)) throw new Error(`launch_apply reported refusal ${code}`);
  return REFUSALS[code as RefusalCode];
}

/**
 * The answer to a refused launch: the first refusal's status, code and message, with the field
 * of every refusal listed (see `listedAlone`). A replay is answered as the replay check does
 * (the launch route may re-enter its session instead).
 */
export function refusalError(refusals: LaunchRefusal[]): AppError {
  if (!refusals.length) throw new Error("launch_apply refused a launch without saying why");
  const code = refusals[0].code;
  if (code === "launch_replayed") return replayed();
  const rule = ruleOf(code);
  const alone = refusals.every((r) => r.code === code);
  const fields = alone && !rule.listedAlone ? [] : refusals.flatMap((r) => {
    const field = ruleOf(r.code).field(r);
    return field ? [field] : [];
  });
  return new AppError(
    rule.status,
    code,
    rule.message(refusals.filter((r) => r.code === code)),
    fields.length ? fields : undefined,
  );
}
