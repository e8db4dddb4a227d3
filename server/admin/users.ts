/** Users and teams for the admin screens: validation and the rules, over db/queries. */
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
} from "../../db/queries/people_admin.ts";
import { isUniqueViolation } from "../../db/queries/apps.ts";
import type { Deps } from "../deps.ts";
import { AppError, validationError } from "../http/errors.ts";

export type { AdminUserRow, TeamRow };

const text = (max: number) =>
  z.string().trim().min(1, "required").max(max, `at most ${max} characters`);

/** The profile form. */
export const ProfileSchema = z.object({
  email: z.string().trim().regex(
    /^[^\s@]+@[^\s@]+\.[^\s@]+$/,
    "expected an e-mail address like name@example.com",
  ).max(320, "at most 320 characters"),
  firstName: text(100),
  lastName: text(100),
  phone: z.string().trim().max(40, "at most 40 characters").regex(
    /^$|^\+?[0-9 ().-]+$/,
    "digits, with an optional leading + and spaces, dots, dashes or parentheses",
  ),
  locale: z.string().trim().regex(
    /^$|^[A-Za-z]{2,3}([-_][A-Za-z0-9]{2,8})*$/,
    "a language code such as fr or fr-CA",
  ),
  teamIds: z.array(z.coerce.number().int().positive()).max(200),
});

/** The team form. */
export const TeamSchema = z.object({
  teamId: z.string().trim().regex(/^[A-Za-z0-9._-]{1,64}$/, "1-64 letters, digits, '.', '_', '-'"),
  name: text(200),
});

/** Users matching a search, newest first. */
export async function findUsers(
  deps: Deps,
  q: { q?: string; role?: "agent" | "admin"; beforeId?: number },
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
    await deps.sql.begin(async (tx) => {
      const found = await updateUserProfile(tx, id, {
        email: v.email,
        firstName: v.firstName,
        lastName: v.lastName,
        phone: v.phone || null,
        locale: v.locale || null,
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

/** Every team. */
export async function teams(deps: Deps): Promise<TeamRow[]> {
  return await listTeams(deps.sql);
}

/** Creates a team; 409 naming teamId when it is taken. */
export async function createTeam(deps: Deps, input: unknown): Promise<void> {
  const parsed = TeamSchema.safeParse(input);
  if (!parsed.success) throw validationError(parsed.error.issues);
  if (!(await insertTeam(deps.sql, parsed.data.teamId, parsed.data.name))) {
    throw new AppError(409, "team_exists", "Invalid request", [
      { path: "teamId", message: "already used by another team" },
    ]);
  }
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
