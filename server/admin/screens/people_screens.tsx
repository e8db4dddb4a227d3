/** Users (agents and administrators) and teams. */
import type { Context, Hono } from "hono";
import type { Deps } from "../../deps.ts";
import { AppError, validationError } from "../../http/errors.ts";
import {
  type AdminUserRow,
  changeTeamName,
  createTeam,
  findUsers,
  removeTeam,
  saveProfile,
  setPassword,
  teams,
  userById,
} from "../users.ts";
import { AgentPasswordSchema } from "../schemas.ts";
import { adminPage, Banner, Check, Csrf, errorMap, type Errors, Field } from "./layout.tsx";
import { adminContext, all, isRefusal, type ScreenEnv, str } from "./routes.tsx";

/** Users per page. */
export const USERS_PAGE = 50;

function idParam(c: Context): number {
  const id = Number(c.req.param("id"));
  if (!Number.isSafeInteger(id) || id <= 0) throw new AppError(404, "not_found", "Not found");
  return id;
}

/** Registers the user and team screens. */
export function peopleScreens(app: Hono<ScreenEnv>, deps: Deps): void {
  const ctxOf = adminContext;

  app.get("/users", async (c) => {
    const q = (c.req.query("q") ?? "").trim().slice(0, 200);
    const role = c.req.query("role");
    const before = Number(c.req.query("before") ?? "");
    const rows = await findUsers(deps, {
      q: q || undefined,
      role: role === "agent" || role === "admin" ? role : undefined,
      beforeId: Number.isSafeInteger(before) && before > 0 ? before : undefined,
    }, USERS_PAGE + 1);
    const more = rows.length > USERS_PAGE;
    const shown = rows.slice(0, USERS_PAGE);
    const next = new URLSearchParams({
      ...(q ? { q } : {}),
      ...(role ? { role } : {}),
      before: String(shown.at(-1)?.id ?? 0),
    });
    return c.html(adminPage(
      ctxOf(c, "users"),
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
          <button type="submit" class="secondary">Search</button>
        </form>
        <table data-testid="users">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">E-mail</th>
              <th scope="col">Role</th>
              <th scope="col">External id</th>
              <th scope="col">Teams</th>
              <th scope="col">Password</th>
            </tr>
          </thead>
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
                <td>{u.externalId ?? ""}</td>
                <td>{u.teamNames.join(", ")}</td>
                <td>{u.hasPassword ? "set" : "none"}</td>
              </tr>
            ))}
          </tbody>
        </table>
        {shown.length === 0 ? <p>No users match.</p> : null}
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
    const ctx = ctxOf(c, "users");
    const allTeams = await teams(deps);
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
        </>,
      ),
      status,
    );
  }

  app.get("/users/:id", async (c) => {
    const user = await userById(deps, idParam(c));
    return userPage(c, user, { notice: c.req.query("saved") ? "Saved." : null });
  });

  app.post("/users/:id", async (c) => {
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

  app.post("/users/:id/password", async (c) => {
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

  async function teamsPage(
    c: Context<ScreenEnv>,
    state: { values?: Record<string, string>; errors?: Errors; error?: string | null },
    status: 200 | 400 | 409 = 200,
  ) {
    const ctx = ctxOf(c, "teams");
    const list = await teams(deps);
    const errors = state.errors ?? {};
    return c.html(
      adminPage(
        ctx,
        "Teams",
        <>
          <Banner error={state.error ?? null} />
          <table data-testid="teams">
            <thead>
              <tr>
                <th scope="col">Team id</th>
                <th scope="col">Name</th>
                <th scope="col">Members</th>
                <th scope="col"></th>
              </tr>
            </thead>
            <tbody>
              {list.map((t) => (
                <tr key={t.id}>
                  <td>
                    <code>{t.teamId}</code>
                  </td>
                  <td>
                    <form method="post" action={`/admin/teams/${t.id}`} class="row">
                      <Csrf ctx={ctx} />
                      <label for={`team-${t.id}`} class="hint">Name</label>
                      <input id={`team-${t.id}`} name="name" value={t.name} required />
                      <button type="submit" class="secondary">Rename</button>
                    </form>
                  </td>
                  <td>{String(t.members)}</td>
                  <td>
                    <form method="post" action={`/admin/teams/${t.id}/delete`}>
                      <Csrf ctx={ctx} />
                      <button type="submit" class="danger" aria-label={`Delete ${t.name}`}>
                        Delete
                      </button>
                    </form>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          <h2>Add a team</h2>
          <p class="hint">Launches create teams named in user.teams by their teamId too.</p>
          <form method="post" action="/admin/teams">
            <Csrf ctx={ctx} />
            <Field name="teamId" label="Team id" value={state.values?.teamId} errors={errors} />
            <Field name="name" label="Name" value={state.values?.name} errors={errors} />
            <button type="submit">Add team</button>
          </form>
        </>,
      ),
      status,
    );
  }

  app.get("/teams", (c) => teamsPage(c, {}));

  app.post("/teams", async (c) => {
    const form = c.get("form");
    const values = { teamId: str(form, "teamId"), name: str(form, "name") };
    try {
      await createTeam(deps, values);
      return c.redirect("/admin/teams", 303);
    } catch (err) {
      if (isRefusal(err, 400, 409)) {
        return teamsPage(c, {
          values,
          errors: errorMap(err.errors),
          error: "Not saved: fix the fields marked below.",
        }, err.status);
      }
      throw err;
    }
  });

  app.post("/teams/:id", async (c) => {
    try {
      await changeTeamName(deps, idParam(c), { name: str(c.get("form"), "name") });
      return c.redirect("/admin/teams", 303);
    } catch (err) {
      if (isRefusal(err, 400)) {
        return teamsPage(
          c,
          { error: `Not renamed: ${err.errors?.[0]?.message ?? err.message}` },
          400,
        );
      }
      throw err;
    }
  });

  app.post("/teams/:id/delete", async (c) => {
    await removeTeam(deps, idParam(c));
    return c.redirect("/admin/teams", 303);
  });
}
