/** Apps (spec §2.1): the list, and the form that creates and edits them. */
import { type Context, Hono } from "hono";
import { generateToken } from "../../crypto/random_token.ts";
import type { Deps } from "../../deps.ts";
import { validationError } from "../../http/errors.ts";
import { publicOrigin } from "../../http/public_origin.ts";
import { allApps, appByName, changeApp, createApp } from "../apps.ts";
import { CreateAppSchema, UpdateAppSchema } from "../schemas.ts";
import { appDetailPage } from "./app_detail.tsx";
import {
  type AppForm,
  appFormFromDetails,
  appFormOf,
  AppFormView,
  appInputOf,
  BLANK_APP_FORM,
} from "./app_form.tsx";
import { adminContext, isRefusal, type ScreenEnv, str } from "./form_helpers.ts";
import { adminPage, Banner, ColumnHeads, errorMap, type Errors } from "./layout.tsx";
import {
  organizationChoice,
  OrganizationFilter,
  organizationOptions,
} from "./organization_select.tsx";
import { allOrganizations } from "../organizations.ts";

/** The apps list and the app form. */
export function appsScreens(deps: Deps): Hono<ScreenEnv> {
  const screens = new Hono<ScreenEnv>();
  const ctxOf = (c: Context<ScreenEnv>) => adminContext(c, "apps");
  const origin = publicOrigin(deps.config);

  screens.get("/apps", async (c) => {
    const choice = await organizationChoice(deps, c);
    const apps = await allApps(deps, origin, choice.chosen?.id);
    return c.html(adminPage(
      ctxOf(c),
      "Apps",
      <>
        <p>
          <a class="button" href="/admin/apps/new">New app</a>
        </p>
        <OrganizationFilter action="/admin/apps" choice={choice} />
        <div class="table-wrap" tabindex={0}>
          <table data-testid="apps">
            <ColumnHeads
              columns={[
                "App Name",
                "Name",
                "Organization",
                "Authentication Type",
                "Enabled",
                "Launch URL",
              ]}
            />
            <tbody>
              {apps.map((a) => (
                <tr key={a.appName}>
                  <td>
                    <a href={`/admin/apps/${a.appName}`}>{a.appName}</a>
                  </td>
                  <td>{a.name}</td>
                  <td>
                    <code>{a.organization}</code>
                  </td>
                  <td>{a.authType}</td>
                  <td>{a.enabled ? "yes" : "no"}</td>
                  <td>
                    <code>{a.launchUrl}</code>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
        {apps.length === 0
          ? (
            <p class="empty">
              No apps yet. Each host app that launches the portal (a CRM, a CTI tool) appears here
              once you add it with New app.
            </p>
          )
          : null}
      </>,
    ));
  });

  /** The form again: with a generated secret, or with the errors of a refused save. */
  async function formPage(
    c: Context<ScreenEnv>,
    f: AppForm,
    editing: boolean,
    state: { errors?: Errors; error?: string } = {},
    status: 200 | 400 | 409 = 200,
  ) {
    const action = editing ? `/admin/apps/${f.appName}` : "/admin/apps";
    const organizations = organizationOptions(await allOrganizations(deps));
    return c.html(
      adminPage(
        ctxOf(c),
        editing ? `Edit ${f.appName}` : "New app",
        <>
          <Banner error={state.error} />
          <AppFormView
            ctx={ctxOf(c)}
            action={action}
            f={f}
            errors={state.errors ?? {}}
            editing={editing}
            organizations={organizations}
          />
        </>,
      ),
      status,
    );
  }

  /** Saves the posted form: creates the app (`editing` null) or changes the app `editing`. */
  async function save(c: Context<ScreenEnv>, editing: string | null) {
    const form = c.get("form");
    const f = appFormOf(form);
    if (editing) f.appName = editing;
    const generate = str(form, "generate");
    if (generate === "apiKey" || generate === "consumerSecret") {
      f[generate] = generateToken(32);
      return formPage(c, f, !!editing);
    }
    const input = appInputOf(f, !!editing);
    try {
      if (editing) {
        const parsed = await UpdateAppSchema.safeParseAsync(input);
        if (!parsed.success) throw validationError(parsed.error.issues);
        const saved = await changeApp(deps, origin, editing, parsed.data);
        return c.html(appDetailPage(ctxOf(c), saved, { notice: "Saved." }));
      }
      const parsed = await CreateAppSchema.safeParseAsync(input);
      if (!parsed.success) throw validationError(parsed.error.issues);
      const created = await createApp(deps, origin, parsed.data);
      return c.html(
        appDetailPage(ctxOf(c), created, {
          notice: "Created.",
          secret: { label: "API client secret", value: created.clientSecret },
        }),
        201,
      );
    } catch (err) {
      if (!isRefusal(err, 400, 409)) throw err;
      return formPage(c, f, !!editing, {
        errors: errorMap(err.errors),
        error: "Not saved: fix the fields marked below.",
      }, err.status);
    }
  }

  screens.get("/apps/new", (c) => formPage(c, { ...BLANK_APP_FORM }, false));

  screens.post("/apps", (c) => save(c, null));

  screens.get("/apps/:name/edit", async (c) => {
    const app = await appByName(deps, origin, c.req.param("name"));
    return formPage(c, appFormFromDetails(app), true);
  });

  screens.post("/apps/:name", async (c) => {
    await appByName(deps, origin, c.req.param("name")); // 404 first
    return await save(c, c.req.param("name"));
  });

  return screens;
}
