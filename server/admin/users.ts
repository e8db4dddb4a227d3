/** Users, teams and agents' portal passwords for the admin: the rules, over db/queries. */
import { inTransaction } from "../transaction.ts";
import { z } from "zod";
import {
  adminUserById,
  type AdminUserRow,
  deleteTeam,
  insertTeam,
  listTeams,
  renameTeam,
  searchUsers,
  setUserTeams,
  type TeamRow,
  updateUserProfile,
  type UserSearch,
} from "../../db/queries/people_admin.ts";
import { isUniqueViolation } from "../../db/errors.ts";
import { lockEnabledAdmins, setAgentPassword, setUserDisabled } from "../../db/queries/users.ts";
import { hashPassword } from "../crypto/hashing.ts";
import type { Deps } from "../deps.ts";
import { AppError, validationError } from "../http/errors.ts";
import { type FIELD_RULES, normalizePhone } from "../launch/contract.ts";
import { fieldText } from "../launch/field_schemas.ts";
import { DEFAULT_ORGANIZATION, organizationIdOf } from "./organizations.ts";
import { OrganizationSlugSchema } from "./schemas.ts";

export type { AdminUserRow, TeamRow };

/**
 * A form field checked by the launch contract's rule: trimmed, and blank counts as absent (so a
 * blank required field says "required", as it does in a launch).
 */
function formText(rule: keyof typeof FIELD_RULES) {
  return blankAsAbsent().pipe(fieldText(rule));
}

/** Trimmed text where "" becomes undefined. */
function blankAsAbsent() {
  return z.string().trim().transform((v) => v === "" ? undefined : v);
}

/**
 * The profile form: the same e-mail, name, phone and locale rules as a launch (the e-mail is
 * lower-cased and the phone stored as its digits, like a launch stores them); phone and locale may
 * be left blank.
 */
export const ProfileSchema = z.object({
  email: formText("email").transform((v) => v.toLowerCase()),
  firstName: formText("name"),
  lastName: formText("name"),
  phone: blankAsAbsent().transform((v, ctx) => {
    if (v === undefined) return undefined;
    const phone = normalizePhone(v);
    if ("error" in phone) {
      ctx.addIssue({ code: "custom", message: phone.error });
      return z.NEVER;
    }
    return phone.digits;
  }),
  locale: blankAsAbsent().pipe(fieldText("locale").optional()),
  teamIds: z.array(z.coerce.number().int().positive()).max(200),
});

/**
 * The team form: a team a launch can create (`user.teams[]`) is a team this form accepts, in an
 * organization (default `default`).
 */
export const TeamSchema = z.object({
  organization: blankAsAbsent().optional().pipe(OrganizationSlugSchema.optional()),
  teamId: formText("teamId"),
  name: formText("teamName"),
});

/** Users matching a search, newest first. */
export async function findUsers(
  deps: Deps,
  q: UserSearch,
  limit: number,
): Promise<AdminUserRow[]> {
  return await searchUsers(deps.sql, q, limit);
}

/** One user; 404 when missing. */
export async function userById(deps: Deps, id: number): Promise<AdminUserRow> {
  const row = await adminUserById(deps.sql, id);
  if (!row) throw new AppError(404, "user_not_found", `User ${id} not found`);
  return row;
}

/** Saves a profile and the user's teams in one transaction. */
export async function saveProfile(deps: Deps, id: number, input: unknown): Promise<void> {
  const parsed = ProfileSchema.safeParse(input);
  if (!parsed.success) throw validationError(parsed.error.issues);
  const v = parsed.data;
  try {
    await inTransaction(deps, async ({ tx }) => {
      const found = await updateUserProfile(tx, id, {
        email: v.email,
        firstName: v.firstName,
        lastName: v.lastName,
        phone: v.phone ?? null,
        locale: v.locale ?? null,
      });
      if (!found) throw new AppError(404, "user_not_found", `User ${id} not found`);
      await setUserTeams(tx, id, v.teamIds);
    });
  } catch (err) {
    if (isUniqueViolation(err)) {
      throw new AppError(409, "email_taken", "Invalid request", [
        { path: "email", message: "another user has this e-mail" },
      ]);
    }
    throw err;
  }
}

/** Every team, or the teams of one organization (its id). */
export async function teams(deps: Deps, organizationId?: number): Promise<TeamRow[]> {
  return await listTeams(deps.sql, organizationId);
}

/** Creates a team; 409 naming teamId when its organization has a team with that id. */
export async function createTeam(deps: Deps, input: unknown): Promise<void> {
  const parsed = TeamSchema.safeParse(input);
  if (!parsed.success) throw validationError(parsed.error.issues);
  const v = parsed.data;
  await inTransaction(deps, async ({ tx }) => {
    const organizationId = await organizationIdOf(
      tx,
      v.organization ?? DEFAULT_ORGANIZATION.slug,
      { keep: true },
    );
    if (!(await insertTeam(tx, { organizationId, teamId: v.teamId, name: v.name }))) {
      throw new AppError(409, "team_exists", "Invalid request", [
        { path: "teamId", message: "already used by another team of this organization" },
      ]);
    }
  });
}

/** Renames a team. */
export async function changeTeamName(deps: Deps, id: number, input: unknown): Promise<void> {
  const parsed = TeamSchema.pick({ name: true }).safeParse(input);
  if (!parsed.success) throw validationError(parsed.error.issues);
  if (!(await renameTeam(deps.sql, id, parsed.data.name))) {
    throw new AppError(404, "team_not_found", `Team ${id} not found`);
  }
}

/** Deletes a team. */
export async function removeTeam(deps: Deps, id: number): Promise<void> {
  if (!(await deleteTeam(deps.sql, id))) {
    throw new AppError(404, "team_not_found", `Team ${id} not found`);
  }
}

/** Sets an agent's portal password (PBKDF2); 404 when no agent has that id. */
export async function setPassword(deps: Deps, agentId: number, password: string): Promise<void> {
  const hash = await hashPassword(password);
  if (!(await setAgentPassword(deps.sql, agentId, hash))) {
    throw new AppError(404, "agent_not_found", `Agent ${agentId} not found`);
  }
}

/** What disabling or enabling a user did. */
export interface AccessChange {
  user: AdminUserRow;
  /** Live logins the change ended (disabling ends them all; enabling ends none). */
  loginsEnded: number;
}

/**
 * Disables or enables a user. Disabling ends all of the user's logins and reset links at once
 * (db trigger) and stops sign-in, password reset and launches for the user until enabled again.
 * An administrator cannot disable their own account (`actorId`, null for an API client), and the
 * last enabled administrator cannot be disabled: either would lock the admin screens.
 */
export async function setUserAccess(
  deps: Deps,
  id: number,
  disabled: boolean,
  actorId: number | null,
): Promise<AccessChange> {
  if (disabled && id === actorId) {
    throw new AppError(
      409,
      "cannot_disable_self",
      "You cannot disable your own account; another administrator can",
    );
  }
  const loginsEnded = await inTransaction(deps, async ({ tx }) => {
    const admins = disabled ? await lockEnabledAdmins(tx) : [];
    if (admins.length === 1 && admins[0] === id) {
      throw new AppError(
        409,
        "last_admin",
        `User ${id} is the only enabled administrator; enable or create another administrator ` +
          "first, or the admin screens would have no one left to sign in",
      );
    }
    const changed = await setUserDisabled(tx, id, disabled);
    if (!changed) throw new AppError(404, "user_not_found", `User ${id} not found`);
    return changed.loginsEnded;
  });
  return { user: await userById(deps, id), loginsEnded };
}
