/** Authentications (spec §2.1): list, create, edit, enable/disable, delete, rotate, template. */
import type { Context, Hono } from "hono";
import { generateToken } from "../../crypto/random_token.ts";
import type { Deps } from "../../deps.ts";
import { validationError } from "../../http/errors.ts";
import { SCOPES } from "../../oauth/scopes.ts";
import { publicOrigin } from "../../http/public_origin.ts";
import {
  type AppDetails,
  createAppConfig,
  deleteAppConfig,
  getAppConfig,
  listAppConfigs,
  rotateApiKey,
  rotateClientSecret,
  updateAppConfig,
} from "../apps.ts";
import { AUTH_TYPES, CreateAppSchema, IMPLEMENTORS, UpdateAppSchema } from "../schemas.ts";
import {
  type AdminContext,
  adminPage,
  Banner,
  Check,
  Csrf,
  errorMap,
  type Errors,
  Field,
} from "./layout.tsx";
import { adminContext, all, isRefusal, type ScreenEnv, str } from "./routes.tsx";

/** What the app form holds, as typed. */
interface AppForm {
  appName: string;
  name: string;
  authType: string;
  apiKey: string;
  consumerKey: string;
  consumerSecret: string;
  implementor: string;
  frameAncestors: string;
  enabled: boolean;
  clientScopes: string[];
}

function formOf(form: Record<string, unknown>): AppForm {
  return {
    appName: str(form, "appName").trim(),
    name: str(form, "name"),
    authType: str(form, "authType"),
    apiKey: str(form, "apiKey").trim(),
    consumerKey: str(form, "consumerKey").trim(),
    consumerSecret: str(form, "consumerSecret").trim(),
    implementor: str(form, "implementor"),
    frameAncestors: str(form, "frameAncestors"),
    enabled: str(form, "enabled") === "on",
    clientScopes: all(form, "clientScopes"),
  };
}

function fromDetails(d: AppDetails): AppForm {
  return {
    appName: d.appName,
    name: d.name,
    authType: d.authType,
    apiKey: d.apiKey ?? "",
    consumerKey: d.consumerKey ?? "",
    consumerSecret: d.consumerSecret ?? "",
    implementor: d.implementor,
    frameAncestors: d.frameAncestors.join("\n"),
    enabled: d.enabled,
    clientScopes: d.clientScopes,
  };
}

/** The API input of a form: empty optional fields are left out (secrets are then generated). */
function inputOf(f: AppForm, editing: boolean) {
  const ancestors = f.frameAncestors.split(/[\s,]+/).map((s) => s.trim()).filter(Boolean);
  const input: Record<string, unknown> = {
    name: f.name,
    authType: f.authType,
    implementor: f.implementor,
    frameAncestors: ancestors,
    enabled: f.enabled,
    clientScopes: f.clientScopes,
  };
  if (!editing) input.appName = f.appName;
  if (f.authType === "signed_request" && f.apiKey) input.apiKey = f.apiKey;
  if (f.authType === "oauth2_signed_request") {
    if (f.consumerKey) input.consumerKey = f.consumerKey;
    if (f.consumerSecret) input.consumerSecret = f.consumerSecret;
  }
  return input;
}

function AppFormView(
  props: { ctx: AdminContext; action: string; f: AppForm; errors: Errors; editing: boolean },
) {
  const { f, errors } = props;
  return (
    <form method="post" action={props.action}>
      <Csrf ctx={props.ctx} />
      {props.editing
        ? (
          <p>
            App Name: <code>{f.appName}</code> (the last segment of the launch URL)
          </p>
        )
        : (
          <Field
            name="appName"
            label="App Name"
            value={f.appName}
            errors={errors}
            hint="The last segment of the launch URL: letters, digits, '-', '_' and '.'."
          />
        )}
      <Field name="name" label="Name" value={f.name} errors={errors} />
      <Field
        name="authType"
        label="Authentication type"
        value={f.authType}
        errors={errors}
        options={AUTH_TYPES.map((t) => [t, t])}
      />
      <Field
        name="implementor"
        label="Implementor"
        value={f.implementor}
        errors={errors}
        options={Object.entries(IMPLEMENTORS)}
      />
      <Field
        name="apiKey"
        label="API key (signed_request)"
        value={f.apiKey}
        errors={errors}
        hint="Leave empty to generate one, or use Generate."
      />
      <p>
        <button type="submit" name="generate" value="apiKey" class="secondary">
          Generate API key
        </button>
      </p>
      <Field
        name="consumerKey"
        label="Consumer Key (oauth2_signed_request)"
        value={f.consumerKey}
        errors={errors}
      />
      <Field
        name="consumerSecret"
        label="Consumer Secret (oauth2_signed_request)"
        value={f.consumerSecret}
        errors={errors}
      />
      <p>
        <button type="submit" name="generate" value="consumerSecret" class="secondary">
          Generate consumer secret
        </button>
      </p>
      <Field
        name="frameAncestors"
        label="Allowed frame ancestors"
        value={f.frameAncestors}
        errors={errors}
        textarea
        rows={3}
        hint="One origin per line, e.g. https://crm.example.com or https://*.example.com. They may frame the portal, receive its errors and call the dry run."
      />
      <fieldset>
        <legend>API client scopes</legend>
        {SCOPES.map((s) => (
          <Check
            key={s}
            name="clientScopes"
            value={s}
            label={s}
            checked={f.clientScopes.includes(s)}
          />
        ))}
        {errors.clientScopes ? <p class="field-error">{errors.clientScopes}</p> : null}
      </fieldset>
      <Check name="enabled" label="Enabled" checked={f.enabled} />
      <button type="submit" name="save" value="1">Save</button>
    </form>
  );
}

function AppSaved(
  props: { ctx: AdminContext; app: AppDetails; secret?: { label: string; value: string } },
) {
  const { app } = props;
  const template = JSON.stringify(app.template, null, 2);
  return (
    <>
      {props.secret
        ? (
          <p class="notice" role="status">
            {props.secret.label} (shown once, save it now):{" "}
            <span class="secret" data-testid="new-secret">{props.secret.value}</span>
          </p>
        )
        : null}
      <table>
        <tbody>
          <tr>
            <th scope="row">App Name</th>
            <td>{app.appName}</td>
          </tr>
          <tr>
            <th scope="row">Type</th>
            <td>{app.authType}</td>
          </tr>
          <tr>
            <th scope="row">Enabled</th>
            <td>{app.enabled ? "yes" : "no"}</td>
          </tr>
          <tr>
            <th scope="row">Launch URL</th>
            <td>
              <code data-testid="launch-url">{app.launchUrl}</code>
            </td>
          </tr>
          <tr>
            <th scope="row">API client</th>
            <td>
              <code>{app.clientId}</code> ({app.clientScopes.join(" ")})
            </td>
          </tr>
          <tr>
            <th scope="row">Allowed frame ancestors</th>
            <td>{app.frameAncestors.join(", ") || "none"}</td>
          </tr>
        </tbody>
      </table>
      <div class="row">
        <a class="button" href={`/admin/apps/${app.appName}/edit`}>Edit</a>
        <form method="post" action={`/admin/apps/${app.appName}/enabled`} class="inline">
          <Csrf ctx={props.ctx} />
          <input type="hidden" name="enabled" value={app.enabled ? "off" : "on"} />
          <button type="submit" class="secondary">{app.enabled ? "Disable" : "Enable"}</button>
        </form>
        {app.authType === "signed_request"
          ? (
            <form method="post" action={`/admin/apps/${app.appName}/rotate-key`} class="inline">
              <Csrf ctx={props.ctx} />
              <button type="submit" class="secondary">Rotate API key</button>
            </form>
          )
          : null}
        <form method="post" action={`/admin/apps/${app.appName}/rotate-secret`} class="inline">
          <Csrf ctx={props.ctx} />
          <button type="submit" class="secondary">Rotate client secret</button>
        </form>
      </div>
      <h2>JSON template</h2>
      <p>
        Build this payload (spec §2.2), sign it with the API key and POST it as{" "}
        <code>signed_request</code> to the launch URL.
      </p>
      <pre id="template" data-testid="template">{template}</pre>
      <button type="button" id="copy-template" class="secondary">Copy template</button>
      <script>
        {"document.getElementById('copy-template').addEventListener('click',function(){" +
          "navigator.clipboard.writeText(document.getElementById('template').textContent)" +
          ".then(function(){document.getElementById('copy-template').textContent='Copied';});});"}
      </script>
      <h2>Delete</h2>
      <form method="post" action={`/admin/apps/${app.appName}/delete`}>
        <Csrf ctx={props.ctx} />
        <Check
          name="confirm"
          label={`Yes, delete ${app.appName} and its API client`}
          checked={false}
        />
        <button type="submit" class="danger">Delete</button>
      </form>
    </>
  );
}

/** Registers the authentication screens. */
export function appScreens(app: Hono<ScreenEnv>, deps: Deps): void {
  const ctxOf = (c: Context<ScreenEnv>) => adminContext(c, "apps");
  const origin = (c: Context<ScreenEnv>) => publicOrigin(deps.config, c);

  app.get("/apps", async (c) => {
    const apps = await listAppConfigs(deps, origin(c));
    return c.html(adminPage(
      ctxOf(c),
      "Authentications",
      <>
        <p>
          <a class="button" href="/admin/apps/new">New authentication</a>
        </p>
        <table data-testid="apps">
          <thead>
            <tr>
              <th scope="col">App Name</th>
              <th scope="col">Name</th>
              <th scope="col">Type</th>
              <th scope="col">Enabled</th>
              <th scope="col">Launch URL</th>
            </tr>
          </thead>
          <tbody>
            {apps.map((a) => (
              <tr key={a.appName}>
                <td>
                  <a href={`/admin/apps/${a.appName}`}>{a.appName}</a>
                </td>
                <td>{a.name}</td>
                <td>{a.authType}</td>
                <td>{a.enabled ? "yes" : "no"}</td>
                <td>
                  <code>{a.launchUrl}</code>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </>,
    ));
  });

  const blank: AppForm = {
    appName: "",
    name: "",
    authType: "signed_request",
    apiKey: "",
    consumerKey: "",
    consumerSecret: "",
    implementor: "default",
    frameAncestors: "",
    enabled: true,
    clientScopes: ["sessions:read", "sessions:write"],
  };

  app.get("/apps/new", (c) =>
    c.html(adminPage(
      ctxOf(c),
      "New authentication",
      <AppFormView ctx={ctxOf(c)} action="/admin/apps" f={blank} errors={{}} editing={false} />,
    )));

  /** Re-renders the form with a generated secret, or with the errors of a refused save. */
  function formAgain(
    c: Context<ScreenEnv>,
    f: AppForm,
    editing: boolean,
    errors: Errors,
    status: 200 | 400 | 409,
    error: string | null,
  ) {
    const action = editing ? `/admin/apps/${f.appName}` : "/admin/apps";
    return c.html(
      adminPage(
        ctxOf(c),
        editing ? `Edit ${f.appName}` : "New authentication",
        <>
          <Banner error={error} />
          <AppFormView ctx={ctxOf(c)} action={action} f={f} errors={errors} editing={editing} />
        </>,
      ),
      status,
    );
  }

  async function save(c: Context<ScreenEnv>, editing: string | null) {
    const form = c.get("form");
    const f = formOf(form);
    if (editing) f.appName = editing;
    const generate = str(form, "generate");
    if (generate === "apiKey" || generate === "consumerSecret") {
      f[generate] = generateToken(32);
      return formAgain(c, f, !!editing, {}, 200, null);
    }
    const schema = editing ? UpdateAppSchema : CreateAppSchema;
    const parsed = schema.safeParse(inputOf(f, !!editing));
    try {
      if (!parsed.success) throw validationError(parsed.error.issues);
      if (editing) {
        const saved = await updateAppConfig(deps, origin(c), editing, parsed.data);
        return c.html(adminPage(
          ctxOf(c),
          saved.appName,
          <>
            <Banner notice="Saved." />
            <AppSaved ctx={ctxOf(c)} app={saved} />
          </>,
        ));
      }
      const created = await createAppConfig(
        deps,
        origin(c),
        parsed.data as Parameters<typeof createAppConfig>[2],
      );
      return c.html(
        adminPage(
          ctxOf(c),
          created.appName,
          <>
            <Banner notice="Created." />
            <AppSaved
              ctx={ctxOf(c)}
              app={created}
              secret={{ label: "API client secret", value: created.clientSecret }}
            />
          </>,
        ),
        201,
      );
    } catch (err) {
      if (isRefusal(err, 400, 409)) {
        return formAgain(
          c,
          f,
          !!editing,
          errorMap(err.errors),
          err.status,
          "Not saved: fix the fields marked below.",
        );
      }
      throw err;
    }
  }

  app.post("/apps", (c) => save(c, null));

  app.get("/apps/:name", async (c) => {
    const a = await getAppConfig(deps, origin(c), c.req.param("name"));
    return c.html(adminPage(ctxOf(c), a.appName, <AppSaved ctx={ctxOf(c)} app={a} />));
  });

  app.get("/apps/:name/edit", async (c) => {
    const a = await getAppConfig(deps, origin(c), c.req.param("name"));
    return formAgain(c, fromDetails(a), true, {}, 200, null);
  });

  app.post("/apps/:name", async (c) => {
    await getAppConfig(deps, origin(c), c.req.param("name")); // 404 first
    return save(c, c.req.param("name"));
  });

  app.post("/apps/:name/enabled", async (c) => {
    const name = c.req.param("name");
    await updateAppConfig(deps, origin(c), name, {
      enabled: str(c.get("form"), "enabled") === "on",
    });
    return c.redirect(`/admin/apps/${name}`, 303);
  });

  app.post("/apps/:name/rotate-key", async (c) => {
    const name = c.req.param("name");
    const key = await rotateApiKey(deps, name);
    const a = await getAppConfig(deps, origin(c), name);
    return c.html(adminPage(
      ctxOf(c),
      a.appName,
      <AppSaved ctx={ctxOf(c)} app={a} secret={{ label: "New API key", value: key }} />,
    ));
  });

  app.post("/apps/:name/rotate-secret", async (c) => {
    const name = c.req.param("name");
    const { clientSecret } = await rotateClientSecret(deps, name);
    const a = await getAppConfig(deps, origin(c), name);
    return c.html(adminPage(
      ctxOf(c),
      a.appName,
      <AppSaved
        ctx={ctxOf(c)}
        app={a}
        secret={{ label: "New API client secret", value: clientSecret }}
      />,
    ));
  });

  app.post("/apps/:name/delete", async (c) => {
    const name = c.req.param("name");
    if (str(c.get("form"), "confirm") !== "on") {
      const a = await getAppConfig(deps, origin(c), name);
      return c.html(
        adminPage(
          ctxOf(c),
          a.appName,
          <>
            <Banner error="Tick the confirmation box to delete." />
            <AppSaved ctx={ctxOf(c)} app={a} />
          </>,
        ),
        400,
      );
    }
    await deleteAppConfig(deps, name);
    return c.redirect("/admin/apps", 303);
  });
}
