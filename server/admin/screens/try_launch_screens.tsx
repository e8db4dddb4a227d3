/**
 * An app's Try launch page (a launch previewer for QA): a form for the payload with its JSON,
 * Dry run (the plan and warnings, nothing written) and Launch (signed on the server with the
 * app's current key, posted by the browser to the launch URL in a new tab or the iframe beside
 * the form, with a link to the launch's log record). Works without JavaScript; the page's script
 * keeps the JSON view live and submits the signed form by itself.
 */
import type { JSX } from "hono/jsx/jsx-runtime";
import { type Context, Hono } from "hono";
import { launchIdByNonce } from "../../../db/queries/launch_log.ts";
import type { Deps } from "../../deps.ts";
import { pagePolicy } from "../../http/page_policy.ts";
import { publicOrigin } from "../../http/public_origin.ts";
import { FLAVORS, SEARCH_TYPES, SIGNED_REQUEST_FIELD } from "../../launch/contract.ts";
import { appByName } from "../apps.ts";
import {
  checkTryForm,
  defaultTryForm,
  type DryRun,
  dryRunTry,
  signTry,
  tryCustomFields,
  type TryErrors,
  type TryForm,
  tryFormOf,
  tryPayload,
} from "../try_launch.ts";
import { adminContext, isRefusal, type ScreenEnv, str } from "./form_helpers.ts";
import { type AdminContext, adminPage, Banner, Check, Csrf, Field } from "./layout.tsx";

/** The browser script of the page (server/assets/files/). */
const SCRIPT = "admin-try-launch.js";
/** The window a Launch opens the portal in: a tab of that name, or the iframe beside the form. */
const WINDOW = { tab: "try-launch-tab", iframe: "try-launch-frame" } as const;

/** What the page shows under the form. */
type Outcome =
  | { kind: "dry_run"; result: DryRun }
  | { kind: "launch"; signedRequest: string; nonce: string; openIn: "tab" | "iframe" }
  | null;

function TryFields(props: { f: TryForm; errors: TryErrors; customFields: string[] }) {
  const { f, errors } = props;
  const text = (name: string, label: string, hint?: string) => (
    <Field name={name} label={label} value={f[name]} errors={errors} hint={hint} />
  );
  return (
    <>
      <fieldset>
        <legend>Agent</legend>
        {text("agentId", "External id (user.id)")}
        {text("agentEmail", "E-mail")}
        {text("agentFirstName", "First name")}
        {text("agentLastName", "Last name")}
        {text("agentLocale", "Locale", "e.g. en or fr-CA; blank: not sent")}
      </fieldset>
      <fieldset>
        <legend>Customer</legend>
        {text("contactId", "Contact id")}
        {text("contactFirstName", "First name")}
        {text("contactLastName", "Last name")}
        {text("contactEmail", "E-mail")}
        {text("contactPhone", "Phone")}
      </fieldset>
      <fieldset>
        <legend>Target</legend>
        {text("referenceNumber", "Reference number")}
        {text("referenceId", "Reference id", "blank: not sent")}
        {text("sessionId", "Existing session id", "blank: a session is found or created")}
        <Field
          name="target"
          label="Flavor (target)"
          value={f.target}
          errors={errors}
          options={FLAVORS.map((v) => [v, v])}
        />
        <Check name="assign" label="Assign the session to the agent" checked={f.assign === "on"} />
      </fieldset>
      <fieldset>
        <legend>Guided paths</legend>
        <Field
          name="pathsSearchType"
          label="Search type"
          value={f.pathsSearchType}
          errors={errors}
          options={SEARCH_TYPES.map((v) => [v, v])}
        />
        {text(
          "pathsSearchValues",
          "Search values",
          "full_text: one text; other types: comma-separated; blank: no search",
        )}
        <Check name="pathsRemote" label="Remote paths" checked={f.pathsRemote === "on"} />
        {errors.pathsRemote ? <p class="field-error">{errors.pathsRemote}</p> : null}
        <Check name="pathsAll" label="All paths" checked={f.pathsAll === "on"} />
      </fieldset>
      {props.customFields.length
        ? (
          <fieldset>
            <legend>Custom fields</legend>
            {props.customFields.map((n) => text(`cf_${n}`, n))}
          </fieldset>
        )
        : null}
      <Field
        name="openIn"
        label="Launch opens the portal in"
        value={f.openIn}
        errors={errors}
        options={[["tab", "a new tab"], ["iframe", "an iframe beside this form"]]}
      />
    </>
  );
}

function DryRunView(props: { r: DryRun }): JSX.Element {
  const { r } = props;
  if (!r.ok) {
    return (
      <section data-testid="dry-run" aria-labelledby="dry-h">
        <h2 id="dry-h">Dry run: refused</h2>
        <p class="alert" data-testid="refusal">
          The launch would be refused ({String(r.status)} <code>{r.code}</code>): {r.message}
        </p>
        {r.errors.length
          ? (
            <ul>
              {r.errors.map((e) => (
                <li key={e.path}>
                  <code>{e.path}</code>: {e.message}
                </li>
              ))}
            </ul>
          )
          : null}
      </section>
    );
  }
  return (
    <section data-testid="dry-run" aria-labelledby="dry-h">
      <h2 id="dry-h">Dry run: the plan (nothing written)</h2>
      <ul data-testid="plan">
        <li>Agent: {r.plan.agent}</li>
        <li>Customer: {r.plan.customer}</li>
        <li>Session: {r.plan.session}</li>
        <li>Assign: {r.plan.assign ? "yes" : "no"}</li>
      </ul>
      <h3>Warnings</h3>
      {r.warnings.length
        ? (
          <ul data-testid="warnings">
            {r.warnings.map((w, i) => (
              <li key={i}>
                <code>{w.path}</code>: {w.message}
              </li>
            ))}
          </ul>
        )
        : <p data-testid="warnings">None.</p>}
      <p>A dry run leaves no launch log record.</p>
    </section>
  );
}

function LaunchView(
  props: { appName: string; launchUrl: string; o: Extract<Outcome, { kind: "launch" }> },
): JSX.Element {
  const { o } = props;
  const record = `/admin/apps/${props.appName}/try-launch/record?nonce=${o.nonce}`;
  return (
    <section data-testid="launch" aria-labelledby="launch-h">
      <h2 id="launch-h">Launch</h2>
      <p>
        Signed with the app's current key (valid for one launch). The portal opens in{" "}
        {o.openIn === "tab" ? "a new tab" : "the frame below"}; if it did not, press the button.
      </p>
      <form
        method="post"
        action={props.launchUrl}
        target={WINDOW[o.openIn]}
        id="try-launch-go"
        data-auto="on"
      >
        <input type="hidden" name={SIGNED_REQUEST_FIELD} value={o.signedRequest} />
        <button type="submit">Open the portal</button>
      </form>
      <p>
        <a href={record} data-testid="record-link">Launch log record of this launch</a>
      </p>
    </section>
  );
}

/** The Try launch screens of an app. */
export function tryLaunchScreens(deps: Deps): Hono<ScreenEnv> {
  const screens = new Hono<ScreenEnv>();
  const origin = publicOrigin(deps.config);
  // The launch URL is on PUBLIC_URL: its form may post there and the iframe may show it.
  const portal = new URL(deps.config.publicUrl).origin;
  const policy = pagePolicy("frame-ancestors 'none'")
    .replace("form-action 'self'", `form-action 'self' ${portal}`) + `; frame-src 'self' ${portal}`;

  async function page(
    c: Context<ScreenEnv>,
    s: { f: TryForm; errors: TryErrors; outcome: Outcome; error?: string },
    status: 200 | 400 | 409 = 200,
  ): Promise<Response> {
    const ctx: AdminContext = adminContext(c, "apps");
    const app = await appByName(deps, origin, c.req.param("name") ?? "");
    const customFields = await tryCustomFields(deps);
    const json = JSON.stringify(tryPayload(s.f, customFields), null, 2);
    const action = `/admin/apps/${app.appName}/try-launch`;
    const invalid = Object.keys(s.errors).length > 0;
    const res = c.html(
      adminPage(
        ctx,
        `Try launch: ${app.appName}`,
        <>
          <p>
            Fill in a launch for <a href={`/admin/apps/${app.appName}`}>{app.appName}</a>.{" "}
            <strong>Dry run</strong> shows what the launch would do and writes nothing;{" "}
            <strong>Launch</strong> signs it here with the app's current key and opens the portal.
          </p>
          <Banner
            error={s.error ??
              (invalid ? s.errors[""] ?? "Check the fields marked below." : null)}
          />
          <div class="try-launch">
            <form method="post" action={action} id="try-launch-form">
              <Csrf ctx={ctx} />
              <TryFields f={s.f} errors={s.errors} customFields={customFields} />
              <div class="row">
                <button type="submit" name="action" value="dry_run" class="secondary">
                  Dry run
                </button>
                <button type="submit" name="action" value="launch">Launch</button>
              </div>
            </form>
            <div>
              <h2>Payload</h2>
              <p class="hint">
                <code>issuedAt</code> and <code>nonce</code> are added when it is signed.
              </p>
              <pre id="try-json" tabindex={0} aria-live="polite" data-testid="try-json">{json}</pre>
              {s.outcome?.kind === "dry_run" ? <DryRunView r={s.outcome.result} /> : null}
              {s.outcome?.kind === "launch"
                ? <LaunchView appName={app.appName} launchUrl={app.launchUrl} o={s.outcome} />
                : null}
              {s.outcome?.kind === "launch" && s.outcome.openIn === "iframe"
                ? <iframe name={WINDOW.iframe} title="Portal" class="try-launch-frame"></iframe>
                : null}
            </div>
          </div>
        </>,
        SCRIPT,
      ),
      status,
    );
    res.headers.set("Content-Security-Policy", policy);
    return res;
  }

  screens.get(
    "/apps/:name/try-launch",
    (c) => page(c, { f: defaultTryForm(), errors: {}, outcome: null }),
  );

  screens.post("/apps/:name/try-launch", async (c) => {
    const name = c.req.param("name");
    const form = c.get("form");
    const customFields = await tryCustomFields(deps);
    const f = tryFormOf((n) => str(form, n), customFields);
    const action = str(form, "action");
    const errors = checkTryForm(f, customFields);
    // The live JSON view of the page's script: the payload and its problems, nothing signed.
    if (action === "preview") {
      return c.json({ payload: tryPayload(f, customFields), errors: errors ?? {} });
    }
    if (errors) return page(c, { f, errors, outcome: null }, 400);
    try {
      if (action === "launch") {
        const signed = await signTry(deps, name, f, customFields);
        const openIn = f.openIn === "iframe" ? "iframe" : "tab";
        return page(c, {
          f,
          errors: {},
          outcome: {
            kind: "launch",
            signedRequest: signed.signedRequest,
            nonce: signed.nonce,
            openIn,
          },
        });
      }
      const result = await dryRunTry(deps, name, f, customFields);
      return page(c, { f, errors: {}, outcome: { kind: "dry_run", result } });
    } catch (err) {
      if (!isRefusal(err, 409)) throw err;
      return page(c, { f, errors: {}, outcome: null, error: err.message }, 409);
    }
  });

  // The log record of a launch signed here, found by its nonce once the portal has received it.
  screens.get("/apps/:name/try-launch/record", async (c) => {
    const app = await deps.apps.get(c.req.param("name"));
    const nonce = c.req.query("nonce") ?? "";
    const id = app && nonce ? await launchIdByNonce(deps.sql, app.id, nonce) : null;
    if (id !== null) return c.redirect(`/admin/launches/${id}`, 303);
    return c.html(
      adminPage(
        adminContext(c, "launch-log"),
        "Launch not recorded yet",
        <p class="notice" role="status" data-testid="no-record">
          The portal has not received this launch yet (or it was for another app). Reload this page
          after the launch, or see the <a href="/admin/launches">launch log</a>.
        </p>,
      ),
      404,
    );
  });

  return screens;
}
