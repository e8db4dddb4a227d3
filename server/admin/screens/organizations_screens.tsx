/**
 * Organizations: the list (with what each owns), add, rename and delete. Deleting is refused while
 * the organization owns apps and for `default`; the refusal is shown on the page.
 */
import { LocalTime } from "../../http/local_time.tsx";
import { type Context, Hono } from "hono";
import type { Deps } from "../../deps.ts";
import { validationError } from "../../http/errors.ts";
import {
  changeOrganizationName,
  createOrganization,
  DEFAULT_ORGANIZATION,
  organizationsWithCounts,
  removeOrganization,
} from "../organizations.ts";
import { CreateOrganizationSchema, UpdateOrganizationSchema } from "../schemas.ts";
import { adminContext, isRefusal, type ScreenEnv, str } from "./form_helpers.ts";
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
import { organizationLabel } from "./organization_select.tsx";

/** What a page shows besides the list: a form's values and errors, a notice or a refusal. */
interface PageState {
  values?: Record<string, string>;
  errors?: Errors;
  notice?: string | null;
  error?: string | null;
}

/** The notice of a redirect back to the list (`?created=`, `?renamed=`, `?deleted=`). */
function noticeOf(c: Context): string | null {
  const q = (name: string) => c.req.query(name) ?? "";
  if (q("created")) return `Organization ${q("created")} created.`;
  if (q("renamed")) return `Organization ${q("renamed")} renamed.`;
  if (q("deleted")) {
    return `Organization ${q("deleted")} deleted, with ${Number(q("agents")) || 0} agents and ` +
      `${Number(q("teams")) || 0} teams.`;
  }
  return null;
}

/** The organization screens. */
export function organizationsScreens(deps: Deps): Hono<ScreenEnv> {
  const screens = new Hono<ScreenEnv>();

  async function page(c: Context<ScreenEnv>, state: PageState, status: 200 | 400 | 409 = 200) {
    const ctx = adminContext(c, "organizations");
    const list = await organizationsWithCounts(deps);
    const errors = state.errors ?? {};
    const deletable = list.filter((o) => o.id !== DEFAULT_ORGANIZATION.id);
    const link = (path: string, slug: string, n: number) => (
      <a href={`/admin/${path}?organization=${encodeURIComponent(slug)}`}>{String(n)}</a>
    );
    return c.html(
      adminPage(
        ctx,
        "Organizations",
        <>
          <Banner notice={state.notice ?? null} error={state.error ?? null} />
          <p class="hint">
            An organization owns apps, agents and teams; its apps share its agents (matched by
            e-mail) and nothing is shared between organizations. <code>default</code>{" "}
            holds what was not put in another one.
          </p>
          <div class="table-wrap" tabindex={0}>
            <table data-testid="organizations">
              <ColumnHeads columns={["Slug", "Name", "Apps", "Agents", "Teams", "Created"]} />
              <tbody>
                {list.map((o) => (
                  <tr key={o.slug}>
                    <td>
                      <code>{o.slug}</code>
                    </td>
                    <td>
                      <form
                        method="post"
                        action={`/admin/organizations/${o.slug}/rename`}
                        class="row"
                      >
                        <Csrf ctx={ctx} />
                        <label for={`org-${o.slug}`} class="hint">Name</label>
                        <input id={`org-${o.slug}`} name="name" value={o.name} required />
                        <button type="submit" class="secondary">Rename</button>
                      </form>
                    </td>
                    <td>{link("apps", o.slug, o.apps)}</td>
                    <td>{link("users", o.slug, o.agents)}</td>
                    <td>{link("teams", o.slug, o.teams)}</td>
                    <td>
                      <LocalTime date={o.createdAt} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <h2>Add an organization</h2>
          <form method="post" action="/admin/organizations">
            <Csrf ctx={ctx} />
            <Field
              name="slug"
              label="Slug"
              value={state.values?.slug}
              errors={errors}
              hint="2-63 lowercase letters, digits and '-'; it never changes."
            />
            <Field name="name" label="Name" value={state.values?.name} errors={errors} />
            <button type="submit">Add organization</button>
          </form>
          <h2>Delete an organization</h2>
          <p class="hint">
            Only an organization without apps can be deleted (delete its apps or move them to
            another organization first). Its agents, with their passwords and logins, and its teams
            are deleted with it. <code>default</code> cannot be deleted.
          </p>
          {deletable.length === 0
            ? <p>No organization can be deleted.</p>
            : (
              <form method="post" action="/admin/organizations/delete">
                <Csrf ctx={ctx} />
                <Field
                  name="delete"
                  label="Organization"
                  value={state.values?.delete}
                  errors={errors}
                  options={deletable.map((o) => [o.slug, organizationLabel(o)])}
                />
                <Check
                  name="confirm"
                  label="Yes, delete it with its agents and teams"
                  checked={false}
                />
                <button type="submit" class="danger">Delete</button>
              </form>
            )}
        </>,
      ),
      status,
    );
  }

  screens.get("/organizations", (c) => page(c, { notice: noticeOf(c) }));

  screens.post("/organizations", async (c) => {
    const form = c.get("form");
    const values = { slug: str(form, "slug").trim(), name: str(form, "name") };
    try {
      const parsed = CreateOrganizationSchema.safeParse(values);
      if (!parsed.success) throw validationError(parsed.error.issues);
      const created = await createOrganization(deps, parsed.data);
      return c.redirect(`/admin/organizations?created=${created.slug}`, 303);
    } catch (err) {
      if (!isRefusal(err, 400, 409)) throw err;
      return page(c, {
        values,
        errors: errorMap(err.errors),
        error: "Not added: fix the fields marked below.",
      }, err.status);
    }
  });

  screens.post("/organizations/delete", async (c) => {
    const form = c.get("form");
    const slug = str(form, "delete");
    if (str(form, "confirm") !== "on") {
      return page(c, {
        values: { delete: slug },
        error: "Not deleted: tick the confirmation box to delete.",
      }, 400);
    }
    try {
      const gone = await removeOrganization(deps, slug);
      const q = new URLSearchParams({
        deleted: slug,
        agents: String(gone.agents),
        teams: String(gone.teams),
      });
      return c.redirect(`/admin/organizations?${q}`, 303);
    } catch (err) {
      if (!isRefusal(err, 409)) throw err;
      return page(c, { values: { delete: slug }, error: `Not deleted: ${err.message}` }, 409);
    }
  });

  screens.post("/organizations/:slug/rename", async (c) => {
    const slug = c.req.param("slug");
    const parsed = UpdateOrganizationSchema.safeParse({ name: str(c.get("form"), "name") });
    if (!parsed.success) {
      const problem = validationError(parsed.error.issues).errors?.[0]?.message;
      return page(c, { error: `Not renamed: ${problem ?? "invalid name"}` }, 400);
    }
    await changeOrganizationName(deps, slug, parsed.data.name);
    return c.redirect(`/admin/organizations?renamed=${slug}`, 303);
  });

  return screens;
}
