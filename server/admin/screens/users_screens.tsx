/** Users (agents and administrators): search, profile with teams, an agent's portal password. */
import { LocalTime } from "../../http/local_time.tsx";
import { type Context, Hono } from "hono";
import type { Deps } from "../../deps.ts";
import { validationError } from "../../http/errors.ts";
import { AgentPasswordSchema } from "../schemas.ts";
import {
  type AdminUserRow,
  findUsers,
  saveProfile,
  setPassword,
  setUserAccess,
  teams,
  userById,
} from "../users.ts";
import { adminContext, all, idParam, isRefusal, type ScreenEnv, str } from "./form_helpers.ts";
import {
  adminPage,
  Banner,
  Check,
  ColumnHeads,
  Csrf,
  errorMap,
  type Errors,
  Field,
} from "./layout.tsx";
import { organizationChoice, OrganizationSelect } from "./organization_select.tsx";

/** Users per page. */
export const USERS_PAGE = 50;

/** The user screens: the searchable list and each user's page. */
export function usersScreens(deps: Deps): Hono<ScreenEnv> {
  const screens = new Hono<ScreenEnv>();

  screens.get("/users", async (c) => {
    const q = (c.req.query("q") ?? "").trim().slice(0, 200);
    const role = c.req.query("role");
    const before = Number(c.req.query("before") ?? "");
    const choice = await organizationChoice(deps, c);
    const organization = choice.chosen?.slug;
    const rows = await findUsers(deps, {
      q: q || undefined,
      role: role === "agent" || role === "admin" ? role : undefined,
      organizationId: choice.chosen?.id,
      beforeId: Number.isSafeInteger(before) && before > 0 ? before : undefined,
    }, USERS_PAGE + 1);
    const more = rows.length > USERS_PAGE;
    const shown = rows.slice(0, USERS_PAGE);
    const next = new URLSearchParams({
      ...(q ? { q } : {}),
      ...(role ? { role } : {}),
      ...(organization ? { organization } : {}),
      before: String(shown.at(-1)?.id ?? 0),
    });
    return c.html(adminPage(
      adminContext(c, "users"),
      "Users",
      <>
        <form method="get" action="/admin/users" role="search" class="row">
          <label for="q">Search</label>
          <input id="q" name="q" value={q} placeholder="e-mail, name or external id" />
          <label for="role">Role</label>
          <select id="role" name="role">
            <option value="">any</option>
            <option value="agent" selected={role === "agent"}>agent</option>
            <option value="admin" selected={role === "admin"}>admin</option>
          </select>
          <OrganizationSelect
            id="organization-filter"
            organizations={choice.organizations}
            chosen={organization ?? ""}
          />
          <button type="submit" class="secondary">Search</button>
        </form>
        <div class="table-wrap" tabindex={0}>
          <table data-testid="users">
            <ColumnHeads
              columns={[
                "Name",
                "E-mail",
                "Role",
                "Organization",
                "External id",
                "Teams",
                "Password",
                "Status",
              ]}
            />
            <tbody>
              {shown.map((u) => (
                <tr key={u.id}>
                  <td>
                    <a href={`/admin/users/${u.id}`}>
                      {`${u.firstName} ${u.lastName}`.trim() || "-"}
                    </a>
                  </td>
                  <td>{u.email}</td>
                  <td>{u.role}</td>
                  <td>{u.organization ? <code>{u.organization}</code> : "all (administrator)"}</td>
                  <td>{u.externalId ?? ""}</td>
                  <td>{u.teamNames.join(", ")}</td>
                  <td>{u.hasPassword ? "set" : "none"}</td>
                  <td>{u.disabledAt ? "disabled" : "enabled"}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
        {shown.length === 0
          ? (
            <p class="empty">
              No users match. Agents appear here when a launch signs them in or you add them.
            </p>
          )
          : null}
        {more ? <a class="button secondary" href={`/admin/users?${next}`}>Next page</a> : null}
      </>,
    ));
  });

  async function userPage(
    c: Context<ScreenEnv>,
    user: AdminUserRow,
    state: {
      values?: Record<string, string>;
      teamIds?: number[];
      errors?: Errors;
      notice?: string | null;
      error?: string | null;
    },
    status: 200 | 400 | 409 = 200,
  ) {
    const ctx = adminContext(c, "users");
    // An agent joins only the teams of its own organization.
    const allTeams = await teams(deps, user.organizationId);
    const v = state.values ?? {
      email: user.email,
      firstName: user.firstName,
      lastName: user.lastName,
      phone: user.phone ?? "",
      locale: user.locale ?? "",
    };
    const chosen = state.teamIds ?? user.teamIds;
    const errors = state.errors ?? {};
    return c.html(
      adminPage(
        ctx,
        `${user.firstName} ${user.lastName}`.trim() || user.email,
        <>
          <Banner notice={state.notice ?? null} error={state.error ?? null} />
          <p>
            Role: <strong>{user.role}</strong>
            {user.organization
              ? (
                <>
                  · organization <code>{user.organization}</code>
                </>
              )
              : null}
            {user.externalId
              ? (
                <>
                  · external id <code>{user.externalId}</code>
                </>
              )
              : null}
          </p>
          <form method="post" action={`/admin/users/${user.id}`}>
            <Csrf ctx={ctx} />
            <Field name="email" label="E-mail" type="email" value={v.email} errors={errors} />
            <Field name="firstName" label="First name" value={v.firstName} errors={errors} />
            <Field name="lastName" label="Last name" value={v.lastName} errors={errors} />
            <Field name="phone" label="Phone" value={v.phone} errors={errors} />
            <Field
              name="locale"
              label="Locale"
              value={v.locale}
              errors={errors}
              hint="The portal's language without a launch, e.g. fr-CA."
            />
            <fieldset>
              <legend>Teams</legend>
              {allTeams.length === 0 ? <p class="hint">No teams yet.</p> : null}
              {allTeams.map((t) => (
                <Check
                  key={t.id}
                  name="teamIds"
                  value={String(t.id)}
                  label={`${t.name} (${t.teamId})`}
                  checked={chosen.includes(t.id)}
                />
              ))}
            </fieldset>
            <button type="submit">Save profile</button>
          </form>
          {user.role === "agent"
            ? (
              <>
                <h2>Portal password</h2>
                <p class="hint">
                  Lets the agent sign in at the portal without a launch (spec §5.4 step 2.4).
                  {user.hasPassword ? " A password is set." : " No password is set."}
                </p>
                <form method="post" action={`/admin/users/${user.id}/password`}>
                  <Csrf ctx={ctx} />
                  <Field
                    name="password"
                    label="New password"
                    type="password"
                    errors={errors}
                    hint="At least 12 characters."
                  />
                  <button type="submit">Set password</button>
                </form>
              </>
            )
            : null}
          <h2>Access</h2>
          <p data-testid="access">
            {user.disabledAt
              ? (
                <>
                  <strong>Disabled</strong> since{" "}
                  <LocalTime date={user.disabledAt} />. The user cannot sign in, reset a password or
                  be logged in by a launch.
                </>
              )
              : (
                <>
                  <strong>Enabled.</strong>{" "}
                  Disabling ends all of this user's logins now and stops sign-in, password reset and
                  launches for them until the user is enabled again.
                </>
              )}
          </p>
          <form method="post" action={`/admin/users/${user.id}/access`}>
            <Csrf ctx={ctx} />
            <input type="hidden" name="disabled" value={String(!user.disabledAt)} />
            <button type="submit" class={user.disabledAt ? undefined : "danger"}>
              {user.disabledAt ? "Enable user" : "Disable user"}
            </button>
          </form>
        </>,
      ),
      status,
    );
  }

  screens.get("/users/:id", async (c) => {
    const user = await userById(deps, idParam(c));
    return userPage(c, user, { notice: c.req.query("saved") ? "Saved." : null });
  });

  screens.post("/users/:id", async (c) => {
    const id = idParam(c);
    const user = await userById(deps, id);
    const form = c.get("form");
    const values = {
      email: str(form, "email"),
      firstName: str(form, "firstName"),
      lastName: str(form, "lastName"),
      phone: str(form, "phone"),
      locale: str(form, "locale"),
    };
    const teamIds = all(form, "teamIds").map(Number);
    try {
      await saveProfile(deps, id, { ...values, teamIds });
      return c.redirect(`/admin/users/${id}?saved=1`, 303);
    } catch (err) {
      if (isRefusal(err, 400, 409)) {
        return userPage(c, user, {
          values,
          teamIds,
          errors: errorMap(err.errors),
          error: "Not saved: fix the fields marked below.",
        }, err.status);
      }
      throw err;
    }
  });

  screens.post("/users/:id/password", async (c) => {
    const id = idParam(c);
    const user = await userById(deps, id);
    const parsed = AgentPasswordSchema.safeParse({ password: str(c.get("form"), "password") });
    try {
      if (!parsed.success) throw validationError(parsed.error.issues);
      await setPassword(deps, id, parsed.data.password);
      return userPage(c, await userById(deps, id), { notice: "Password set." });
    } catch (err) {
      if (isRefusal(err, 400)) {
        return userPage(c, user, {
          errors: errorMap(err.errors),
          error: "Password not set.",
        }, 400);
      }
      throw err;
    }
  });

  screens.post("/users/:id/access", async (c) => {
    const id = idParam(c);
    const user = await userById(deps, id);
    const disabled = str(c.get("form"), "disabled") === "true";
    try {
      const done = await setUserAccess(deps, id, disabled, c.get("admin").userId);
      const notice = disabled
        ? `User disabled; ${done.loginsEnded} live login${done.loginsEnded === 1 ? "" : "s"} ended.`
        : "User enabled.";
      return userPage(c, done.user, { notice });
    } catch (err) {
      if (isRefusal(err, 409)) return userPage(c, user, { error: err.message }, 409);
      throw err;
    }
  });

  return screens;
}
