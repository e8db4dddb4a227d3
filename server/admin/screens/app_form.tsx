/** The app form (spec §2.1): what it holds, how it maps to the API input, and its view. */
import type { JSX } from "hono/jsx/jsx-runtime";
import type { AppDetails } from "../apps.ts";
import { AUTH_TYPES, IMPLEMENTORS } from "../schemas.ts";
import { SCOPES } from "../../oauth/scopes.ts";
import { CALLBACK_METHODS, TOKEN_AUTH_METHODS } from "../../callbacks/contract.ts";
import { SUBSCRIBABLE_EVENTS } from "../callback_settings.ts";
import { all, str } from "./form_helpers.ts";
import { type AdminContext, Check, Checks, Csrf, type Errors, Field } from "./layout.tsx";

/** What the app form holds, as typed. */
export interface AppForm {
  appName: string;
  name: string;
  /** The slug of the organization owning the app. */
  organization: string;
  authType: string;
  apiKey: string;
  consumerKey: string;
  consumerSecret: string;
  implementor: string;
  replayProtection: string;
  maxAgeSeconds: string;
  frameAncestors: string;
  enabled: boolean;
  clientScopes: string[];
  callbackUrl: string;
  callbackMethod: string;
  callbackEvents: string[];
  tokenUrl: string;
  tokenAuthMethod: string;
}

/** The form of a new app. */
export const BLANK_APP_FORM: Readonly<AppForm> = {
  appName: "",
  name: "",
  organization: "default",
  authType: "signed_request",
  apiKey: "",
  consumerKey: "",
  consumerSecret: "",
  implementor: "default",
  replayProtection: "required",
  maxAgeSeconds: "300",
  frameAncestors: "",
  enabled: true,
  clientScopes: ["sessions:read", "sessions:write"],
  callbackUrl: "",
  callbackMethod: "POST",
  callbackEvents: [...SUBSCRIBABLE_EVENTS],
  tokenUrl: "",
  tokenAuthMethod: "client_secret_basic",
};

/** The form as posted. */
export function appFormOf(form: Record<string, unknown>): AppForm {
  return {
    appName: str(form, "appName").trim(),
    name: str(form, "name"),
    organization: str(form, "organization"),
    authType: str(form, "authType"),
    apiKey: str(form, "apiKey").trim(),
    consumerKey: str(form, "consumerKey").trim(),
    consumerSecret: str(form, "consumerSecret").trim(),
    implementor: str(form, "implementor"),
    replayProtection: str(form, "replayProtection"),
    maxAgeSeconds: str(form, "maxAgeSeconds").trim(),
    frameAncestors: str(form, "frameAncestors"),
    enabled: str(form, "enabled") === "on",
    clientScopes: all(form, "clientScopes"),
    callbackUrl: str(form, "callbackUrl").trim(),
    callbackMethod: str(form, "callbackMethod"),
    callbackEvents: all(form, "callbackEvents"),
    tokenUrl: str(form, "tokenUrl").trim(),
    tokenAuthMethod: str(form, "tokenAuthMethod"),
  };
}

/** The form of a saved app. */
export function appFormFromDetails(d: AppDetails): AppForm {
  return {
    appName: d.appName,
    name: d.name,
    organization: d.organization,
    authType: d.authType,
    // Stored secrets are never shown again: empty keeps them, a value replaces them.
    apiKey: "",
    consumerKey: d.consumerKey ?? "",
    consumerSecret: "",
    implementor: d.implementor,
    replayProtection: d.replayProtection,
    maxAgeSeconds: String(d.maxAgeSeconds),
    frameAncestors: d.frameAncestors.join("\n"),
    enabled: d.enabled,
    clientScopes: d.clientScopes,
    callbackUrl: d.callbackUrl ?? "",
    callbackMethod: d.callbackMethod,
    callbackEvents: d.callbackEvents,
    tokenUrl: d.tokenUrl ?? "",
    tokenAuthMethod: d.tokenAuthMethod,
  };
}

/** The API input of a form: empty optional fields are left out (secrets are then generated). */
export function appInputOf(f: AppForm, editing: boolean): Record<string, unknown> {
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
  if (f.organization) input.organization = f.organization;
  if (f.replayProtection) input.replayProtection = f.replayProtection;
  if (f.maxAgeSeconds) {
    // A number when it is digits; otherwise the text, so the schema names the field.
    input.maxAgeSeconds = /^\d{1,6}$/.test(f.maxAgeSeconds)
      ? Number(f.maxAgeSeconds)
      : f.maxAgeSeconds;
  }
  // An empty callback URL turns callbacks off; every box ticked means every type (also later ones).
  input.callbackUrl = f.callbackUrl || null;
  if (f.callbackMethod) input.callbackMethod = f.callbackMethod;
  input.callbackEvents = SUBSCRIBABLE_EVENTS.every((t) => f.callbackEvents.includes(t))
    ? null
    : f.callbackEvents;
  if (f.tokenAuthMethod) input.tokenAuthMethod = f.tokenAuthMethod;
  if (f.authType === "signed_request" && f.apiKey) input.apiKey = f.apiKey;
  if (f.authType === "oauth2_signed_request") {
    if (f.consumerKey) input.consumerKey = f.consumerKey;
    if (f.consumerSecret) input.consumerSecret = f.consumerSecret;
    input.tokenUrl = f.tokenUrl || null;
  }
  return input;
}

/** The app form, with each error next to its field; `organizations` are the select's options. */
export function AppFormView(
  props: {
    ctx: AdminContext;
    action: string;
    f: AppForm;
    errors: Errors;
    editing: boolean;
    organizations: [string, string][];
  },
): JSX.Element {
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
        name="organization"
        label="Organization"
        value={f.organization}
        errors={errors}
        options={props.organizations}
        hint="The organization's agents and teams are the app's. An app that has sessions cannot move to another organization."
      />
      <Field
        name="authType"
        label="Authentication Type"
        value={f.authType}
        errors={errors}
        options={AUTH_TYPES.map((t) => [t, t])}
      />
      <Field
        name="implementor"
        label="Implementor Class"
        value={f.implementor}
        errors={errors}
        options={Object.entries(IMPLEMENTORS)}
      />
      <Field
        name="replayProtection"
        label="Replay protection"
        value={f.replayProtection}
        errors={errors}
        options={[
          ["required", "required: issuedAt and single use (recommended)"],
          ["optional", "optional: checked when issuedAt is sent (legacy senders)"],
          ["off", "off: no checks (unsafe: a captured request launches again)"],
        ]}
      />
      <Field
        name="maxAgeSeconds"
        label="Max age of a signed request (seconds)"
        value={f.maxAgeSeconds}
        errors={errors}
        hint="30 to 3600; default 300."
      />
      <Field
        name="apiKey"
        label="API Key (signed_request)"
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
        hint="One origin per line, e.g. https://crm.example.com or https://*.example.com. They may frame the portal, receive its errors, call the dry run, and post launches: a launch posted from any other site is refused (403 origin_not_allowed). Left empty, the portal cannot be framed and launches are accepted from any site."
      />
      <Checks
        name="clientScopes"
        legend="API client scopes"
        options={[...SCOPES]}
        chosen={f.clientScopes}
        errors={errors}
      />
      <fieldset>
        <legend>Callbacks to the CRM</legend>
        <Field
          name="callbackUrl"
          label="Callback URL"
          value={f.callbackUrl}
          errors={errors}
          hint="Where callback events are sent, e.g. https://crm.example.com/hooks/{referenceId}. Empty: no callbacks. {referenceId}, {webhookId} and, for the CRM connector, {instanceUrl} (only at the start: {instanceUrl}/path) are replaced."
        />
        <Field
          name="callbackMethod"
          label="Method"
          value={f.callbackMethod}
          errors={errors}
          options={CALLBACK_METHODS.map((m) => [m, m])}
        />
        <Checks
          name="callbackEvents"
          legend="Events sent"
          options={[...SUBSCRIBABLE_EVENTS]}
          chosen={f.callbackEvents}
          errors={errors}
        />
        <Field
          name="tokenUrl"
          label="Token URL (OAuth 2.0 apps)"
          value={f.tokenUrl}
          errors={errors}
          hint="The CRM's OAuth 2.0 token endpoint: callbacks carry a client-credentials token got with the consumer key and secret."
        />
        <Field
          name="tokenAuthMethod"
          label="Token request authentication"
          value={f.tokenAuthMethod}
          errors={errors}
          options={TOKEN_AUTH_METHODS.map((m) => [m, m])}
        />
      </fieldset>
      <Check name="enabled" label="Enabled" checked={f.enabled} />
      <button type="submit" name="save" value="1">Save</button>
    </form>
  );
}
