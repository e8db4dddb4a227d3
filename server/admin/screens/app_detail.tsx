/**
 * An app's page: its settings, launch URL, API client and JSON template, with enable/disable,
 * key and secret rotation (each new secret shown once) and delete.
 */
import { LocalTime } from "../../http/local_time.tsx";
import { endKeyOverlap, rotateKey } from "../key_rotation.ts";
import type { JSX } from "hono/jsx/jsx-runtime";
import { type Context, Hono } from "hono";
import type { Deps } from "../../deps.ts";
import { SIGNED_REQUEST_FIELD } from "../../launch/contract.ts";
import { publicOrigin } from "../../http/public_origin.ts";
import {
  appByName,
  type AppDetails,
  AppHasSessionsError,
  type AppHoldings,
  changeApp,
  holdingsOfApp,
  removeApp,
  rotateClientSecret,
} from "../apps.ts";
import { adminContext, type ScreenEnv, str } from "./form_helpers.ts";
import { type AdminContext, adminPage, Banner, Check, Csrf } from "./layout.tsx";

/** The browser script of the page (server/assets/files/). */
const SCRIPT = "admin-copy-template.js";

/** The app's details and actions; `secret` is a new secret to show once. */
export function AppDetail(
  props: {
    ctx: AdminContext;
    app: AppDetails;
    secret?: { label: string; value: string };
    holdings?: AppHoldings;
  },
): JSX.Element {
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
      <div class="table-wrap" tabindex={0}>
        <table>
          <tbody>
            <tr>
              <th scope="row">App Name</th>
              <td>{app.appName}</td>
            </tr>
            <tr>
              <th scope="row">Organization</th>
              <td>
                <a href={`/admin/apps?organization=${app.organization}`}>
                  <code>{app.organization}</code>
                </a>
              </td>
            </tr>
            <tr>
              <th scope="row">Authentication Type</th>
              <td>{app.authType}</td>
            </tr>
            <tr>
              <th scope="row">Enabled</th>
              <td>{app.enabled ? "yes" : "no"}</td>
            </tr>
            <tr>
              <th scope="row">Current key last used</th>
              <td data-testid="current-key-used">
                <LocalTime date={app.signingKeys.currentLastUsedAt} />
              </td>
            </tr>
            {app.signingKeys.previousExpiresAt
              ? (
                <tr>
                  <th scope="row">Previous key</th>
                  <td data-testid="previous-key">
                    verifies until <LocalTime date={app.signingKeys.previousExpiresAt} />; last used
                    {" "}
                    <LocalTime date={app.signingKeys.previousLastUsedAt} />
                    {app.signingKeys.previousLastUsedAt ? "" : " (safe to revoke)"}
                  </td>
                </tr>
              )
              : null}
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
      </div>
      <div class="row">
        <a class="button" href={`/admin/apps/${app.appName}/edit`}>Edit</a>
        <a class="button" href={`/admin/apps/${app.appName}/try-launch`}>Try launch</a>
        <form method="post" action={`/admin/apps/${app.appName}/enabled`} class="inline">
          <Csrf ctx={props.ctx} />
          <input type="hidden" name="enabled" value={app.enabled ? "off" : "on"} />
          <button type="submit" class="secondary">{app.enabled ? "Disable" : "Enable"}</button>
        </form>
        <form method="post" action={`/admin/apps/${app.appName}/rotate-key`} class="inline">
          <Csrf ctx={props.ctx} />
          <button type="submit" class="secondary">
            {app.authType === "signed_request" ? "Rotate API key" : "Rotate consumer secret"}
          </button>
        </form>
        {app.signingKeys.previousExpiresAt
          ? (
            <form
              method="post"
              action={`/admin/apps/${app.appName}/end-key-overlap`}
              class="inline"
            >
              <Csrf ctx={props.ctx} />
              <button type="submit" class="secondary">Revoke previous key now</button>
            </form>
          )
          : null}
        <form method="post" action={`/admin/apps/${app.appName}/rotate-secret`} class="inline">
          <Csrf ctx={props.ctx} />
          <button type="submit" class="secondary">Rotate client secret</button>
        </form>
      </div>
      <h2>Callbacks</h2>
      <div class="table-wrap" tabindex={0}>
        <table>
          <tbody>
            <tr>
              <th scope="row">Callback URL</th>
              <td data-testid="callback-url">
                {app.callbackUrl
                  ? <code>{app.callbackMethod} {app.callbackUrl}</code>
                  : "none: the CRM is not called back"}
              </td>
            </tr>
            <tr>
              <th scope="row">Events</th>
              <td>{app.callbackEvents.join(", ")}</td>
            </tr>
            {app.authType === "oauth2_signed_request"
              ? (
                <tr>
                  <th scope="row">Token URL</th>
                  <td>
                    {app.tokenUrl ? <code>{app.tokenUrl}</code> : "none: callbacks carry no token"}
                    {app.tokenUrl ? ` (${app.tokenAuthMethod})` : ""}
                  </td>
                </tr>
              )
              : null}
            <tr>
              <th scope="row">Signing secret</th>
              <td>
                <code>{app.callbackSecret ?? "none yet (made with the first callback URL)"}</code>
                {app.callbackSecretPreviousExpiresAt
                  ? (
                    <>
                      {" "}(the previous one also signs until{" "}
                      <LocalTime date={app.callbackSecretPreviousExpiresAt} />)
                    </>
                  )
                  : ""}
              </td>
            </tr>
          </tbody>
        </table>
      </div>
      <div class="row">
        <a class="button" href={`/admin/apps/${app.appName}/deliveries`}>Delivery log</a>
        {app.callbackUrl
          ? (
            <form method="post" action={`/admin/apps/${app.appName}/callbacks/test`} class="inline">
              <Csrf ctx={props.ctx} />
              <button type="submit" class="secondary">Send test event</button>
            </form>
          )
          : null}
        <form
          method="post"
          action={`/admin/apps/${app.appName}/rotate-callback-secret`}
          class="inline"
        >
          <Csrf ctx={props.ctx} />
          <button type="submit" class="secondary">Rotate signing secret</button>
        </form>
      </div>
      <h2>JSON template</h2>
      <p>
        Build this payload (spec §2.2), sign it with the API key and POST it as{" "}
        <code>{SIGNED_REQUEST_FIELD}</code> to the launch URL.
      </p>
      <pre id="template" tabindex={0} aria-label="JSON template" data-testid="template">
        {template}
      </pre>
      <button type="button" id="copy-template" class="secondary">Copy template</button>
      <DeleteApp ctx={props.ctx} appName={app.appName} holdings={props.holdings} />
    </>
  );
}

/** What an app holds, in words ("3 sessions, 2 customers and 5 launch log records"). */
function holdingsText(h: AppHoldings): string {
  return `${h.sessions} sessions, ${h.customers} customers and ${h.launches} launch log records`;
}

/**
 * The delete form; with `holdings` (a delete was refused: the app has sessions) it also offers the
 * cascade, behind its own confirmation box naming what goes with the app.
 */
function DeleteApp(
  props: { ctx: AdminContext; appName: string; holdings?: AppHoldings },
): JSX.Element {
  const { appName, holdings } = props;
  return (
    <>
      <h2>Delete</h2>
      <form method="post" action={`/admin/apps/${appName}/delete`}>
        <Csrf ctx={props.ctx} />
        <Check name="confirm" label={`Yes, delete ${appName} and its API client`} checked={false} />
        <button type="submit" class="danger">Delete</button>
      </form>
      {holdings
        ? (
          <form
            method="post"
            action={`/admin/apps/${appName}/delete`}
            data-testid="delete-cascade"
          >
            <Csrf ctx={props.ctx} />
            <p>
              {appName} has {holdingsText(holdings)}. Deleting it with them cannot be undone.
            </p>
            <input type="hidden" name="cascade" value="on" />
            <Check
              name="confirmCascade"
              label={`Yes, delete ${appName} with its ${holdingsText(holdings)}`}
              checked={false}
            />
            <button type="submit" class="danger">Delete with its sessions</button>
          </form>
        )
        : null}
    </>
  );
}

/** The page of one app, with a banner above it. */
export function appDetailPage(
  ctx: AdminContext,
  app: AppDetails,
  extra: {
    notice?: string;
    error?: string;
    secret?: { label: string; value: string };
    holdings?: AppHoldings;
  } = {},
): string {
  return adminPage(
    ctx,
    app.appName,
    <>
      <Banner notice={extra.notice} error={extra.error} />
      <AppDetail ctx={ctx} app={app} secret={extra.secret} holdings={extra.holdings} />
    </>,
    SCRIPT,
  );
}

/** The screens of one app: its page, enable/disable, rotations and delete. */
export function appDetailScreens(deps: Deps): Hono<ScreenEnv> {
  const screens = new Hono<ScreenEnv>();
  const ctxOf = (c: Context<ScreenEnv>) => adminContext(c, "apps");
  // The launch URLs shown here are copied into host apps: PUBLIC_URL, never a forwarded host.
  const origin = publicOrigin(deps.config);

  screens.get("/apps/:name", async (c) => {
    const app = await appByName(deps, origin, c.req.param("name"));
    return c.html(appDetailPage(ctxOf(c), app));
  });

  screens.post("/apps/:name/enabled", async (c) => {
    const name = c.req.param("name");
    await changeApp(deps, origin, name, { enabled: str(c.get("form"), "enabled") === "on" });
    return c.redirect(`/admin/apps/${name}`, 303);
  });

  // The signing key of the app's type: the API key, or the OAuth apps' consumer secret. The old
  // one keeps verifying for a week (the overlap) unless revoked below.
  screens.post("/apps/:name/rotate-key", async (c) => {
    const name = c.req.param("name");
    const before = await appByName(deps, origin, name);
    const field = before.authType === "signed_request" ? "api_key" : "consumer_secret";
    const { secret: value, previousKeyExpiresAt } = await rotateKey(deps, name, field);
    const app = await appByName(deps, origin, name);
    return c.html(appDetailPage(ctxOf(c), app, {
      notice: previousKeyExpiresAt
        ? `The previous key keeps verifying until ${previousKeyExpiresAt.toISOString()}.`
        : undefined,
      secret: { label: field === "api_key" ? "New API key" : "New consumer secret", value },
    }));
  });

  screens.post("/apps/:name/end-key-overlap", async (c) => {
    const name = c.req.param("name");
    await endKeyOverlap(deps, name);
    const app = await appByName(deps, origin, name);
    return c.html(appDetailPage(ctxOf(c), app, { notice: "The previous key no longer verifies." }));
  });

  screens.post("/apps/:name/rotate-secret", async (c) => {
    const name = c.req.param("name");
    const { clientSecret: value } = await rotateClientSecret(deps, name);
    const app = await appByName(deps, origin, name);
    return c.html(
      appDetailPage(ctxOf(c), app, { secret: { label: "New API client secret", value } }),
    );
  });

  // Refused while the app has sessions: the page then shows the counts and offers the cascade,
  // which needs its own confirmation box.
  screens.post("/apps/:name/delete", async (c) => {
    const name = c.req.param("name");
    const form = c.get("form");
    const cascade = str(form, "cascade") === "on";
    const confirmed = str(form, cascade ? "confirmCascade" : "confirm") === "on";
    if (!confirmed) {
      const app = await appByName(deps, origin, name);
      const holdings = cascade ? await holdingsOfApp(deps, name) : undefined;
      return c.html(
        appDetailPage(ctxOf(c), app, { error: "Tick the confirmation box to delete.", holdings }),
        400,
      );
    }
    try {
      await removeApp(deps, name, { cascade });
    } catch (err) {
      if (!(err instanceof AppHasSessionsError)) throw err;
      const app = await appByName(deps, origin, name);
      return c.html(
        appDetailPage(ctxOf(c), app, {
          error: `Not deleted: ${name} has ${holdingsText(err.counts)}.`,
          holdings: err.counts,
        }),
        409,
      );
    }
    return c.redirect("/admin/apps", 303);
  });

  return screens;
}
