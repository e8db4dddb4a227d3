/**
 * Teams: the list (filterable by organization), add (in an organization), rename and delete.
 * Launches create teams too, by teamId, in their app's organization.
 */
import { type Context, Hono } from "hono";
import type { Deps } from "../../deps.ts";
import { changeTeamName, createTeam, removeTeam, teams } from "../users.ts";
import { adminContext, idParam, isRefusal, type ScreenEnv, str } from "./form_helpers.ts";
import { adminPage, Banner, ColumnHeads, Csrf, errorMap, type Errors, Field } from "./layout.tsx";
import {
  organizationChoice,
  OrganizationFilter,
  organizationOptions,
} from "./organization_select.tsx";

/** The team screens. */
export function teamsScreens(deps: Deps): Hono<ScreenEnv> {
  const screens = new Hono<ScreenEnv>();

  async function teamsPage(
    c: Context<ScreenEnv>,
    state: { values?: Record<string, string>; errors?: Errors; error?: string | null },
    status: 200 | 400 | 409 = 200,
  ) {
    const ctx = adminContext(c, "teams");
    const choice = await organizationChoice(deps, c);
    const list = await teams(deps, choice.chosen?.id);
    const errors = state.errors ?? {};
    return c.html(
      adminPage(
        ctx,
        "Teams",
        <>
          <Banner error={state.error ?? null} />
          <OrganizationFilter action="/admin/teams" choice={choice} />
          <div class="table-wrap" tabindex={0}>
            <table data-testid="teams">
              <ColumnHeads columns={["Team id", "Name", "Organization", "Members", ""]} />
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
                    <td>
                      <code>{t.organization}</code>
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
          </div>
          {list.length === 0
            ? (
              <p class="empty">
                No teams yet. Teams you add below, or that launches name in user.teams, appear here.
              </p>
            )
            : null}
          <h2>Add a team</h2>
          <p class="hint">
            Launches create teams named in user.teams by their teamId too, in their app's
            organization. A team id is unique within its organization.
          </p>
          <form method="post" action="/admin/teams">
            <Csrf ctx={ctx} />
            <Field
              name="organization"
              label="Organization"
              value={state.values?.organization ?? choice.chosen?.slug ?? "default"}
              errors={errors}
              options={organizationOptions(choice.organizations)}
            />
            <Field name="teamId" label="Team id" value={state.values?.teamId} errors={errors} />
            <Field name="name" label="Name" value={state.values?.name} errors={errors} />
            <button type="submit">Add team</button>
          </form>
        </>,
      ),
      status,
    );
  }

  screens.get("/teams", (c) => teamsPage(c, {}));

  screens.post("/teams", async (c) => {
    const form = c.get("form");
    const values = {
      organization: str(form, "organization"),
      teamId: str(form, "teamId"),
      name: str(form, "name"),
    };
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

  screens.post("/teams/:id", async (c) => {
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

  screens.post("/teams/:id/delete", async (c) => {
    await removeTeam(deps, idParam(c));
    return c.redirect("/admin/teams", 303);
  });

  return screens;
}
