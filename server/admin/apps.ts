/** Apps (the spec's authentication configurations) and their API clients: the rules. */
import { type SealedField, secretContext } from "../crypto/secret_box.ts";
import { type AppDetails, details } from "./app_details.ts";
import { FRESHNESS } from "../launch/contract.ts";
import type { z } from "@hono/zod-openapi";
import type { Tx } from "../../db/mod.ts";
import {
  type AppHoldings,
  appHoldings,
  type AppRow,
  type AppValues,
  deleteAgentExternalIds,
  deleteApp,
  deleteAppHoldings,
  findAppByName,
  insertApp,
  listApps,
  lockAppForMove,
  updateApp,
} from "../../db/queries/apps.ts";
import {
  type ApiClientRow,
  findClientOfApp,
  insertAppClient,
  replaceClientSecret,
  updateClientScopes,
} from "../../db/queries/api_clients.ts";
import { hashSecret } from "../crypto/hashing.ts";
import { generateToken } from "../crypto/random_token.ts";
import type { Deps } from "../deps.ts";
import { AppError, type FieldError } from "../http/errors.ts";
import { DEFAULT_APP_SCOPES } from "../oauth/scopes.ts";
import { inTransaction } from "../transaction.ts";
import type { CreateAppSchema, UpdateAppSchema } from "./schemas.ts";
import { callbackErrors } from "./callback_settings.ts";
import { generateCallbackSecret } from "../callbacks/signing.ts";
import { DEFAULT_ORGANIZATION, organizationIdOf } from "./organizations.ts";

/** Validated create input. */
export type CreateAppInput = z.infer<typeof CreateAppSchema>;
/** Validated update input. */
export type UpdateAppInput = z.infer<typeof UpdateAppSchema>;

export type { AppDetails, AppHoldings };

function notFound(appName: string): AppError {
  return new AppError(404, "app_not_found", `Unknown application: ${appName}`);
}

function nameTaken(appName: string): AppError {
  return new AppError(409, "app_exists", `App Name ${appName} is already used`, [
    { path: "appName", message: "already used by another app" },
  ]);
}

/**
 * Checks the per-type fields of a merged app: signed_request carries an API key and
 * no consumer credentials; oauth2_signed_request carries both consumer fields and no API key.
 */
function typeErrors(
  authType: AppRow["authType"],
  given: { apiKey?: unknown; consumerKey?: unknown; consumerSecret?: unknown },
  merged: { consumerKey: string | null; consumerSecret: string | null },
): FieldError[] {
  const errors: FieldError[] = [];
  if (authType === "signed_request") {
    for (const field of ["consumerKey", "consumerSecret"] as const) {
      if (given[field] !== undefined) {
        errors.push({ path: field, message: "applies only to authType oauth2_signed_request" });
      }
    }
  } else {
    if (given.apiKey !== undefined) {
      errors.push({
        path: "apiKey",
        message: "applies only to authType signed_request (oauth2 apps sign with consumerSecret)",
      });
    }
    for (const field of ["consumerKey", "consumerSecret"] as const) {
      if (!merged[field]) {
        errors.push({ path: field, message: "required for authType oauth2_signed_request" });
      }
    }
  }
  return errors;
}

async function loadApp(tx: Tx, appName: string): Promise<{ app: AppRow; client: ApiClientRow }> {
  const app = await findAppByName(tx, appName);
  if (!app) throw notFound(appName);
  const client = await findClientOfApp(tx, app.id);
  if (!client) throw new Error(`app ${app.id} has no API client`);
  return { app, client };
}

/** Creates an app and its API client; the API key is generated when omitted. */
export async function createApp(
  deps: Deps,
  origin: string,
  input: CreateAppInput,
): Promise<AppDetails & { clientSecret: string }> {
  const errors = [
    ...typeErrors(input.authType, input, {
      consumerKey: input.consumerKey ?? null,
      consumerSecret: input.consumerSecret ?? null,
    }),
    ...callbackErrors(deps.config, input.authType, input),
  ];
  if (errors.length) throw new AppError(400, "validation_failed", "Invalid request", errors);
  const apiKey = input.authType === "signed_request" ? input.apiKey ?? generateToken(32) : null;
  const clientSecret = generateToken(40);
  return await inTransaction(deps, async ({ tx, after }) => {
    after.appsChanged();
    const organizationId = await organizationIdOf(
      tx,
      input.organization ?? DEFAULT_ORGANIZATION.slug,
      { keep: true },
    );
    // Inserted first, with placeholders the same transaction replaces: sealed secrets are bound
    // to the app's id, which the insert makes.
    const inserted = await insertApp(tx, {
      organizationId,
      appName: input.appName,
      name: input.name,
      authType: input.authType,
      apiKeySealed: apiKey ? "pending" : null,
      consumerKey: input.consumerKey ?? null,
      consumerSecretSealed: input.consumerSecret ? "pending" : null,
      implementor: input.implementor ?? "default",
      replayProtection: input.replayProtection ?? "required",
      maxAgeSeconds: input.maxAgeSeconds ?? FRESHNESS.defaultMaxAgeSeconds,
      frameAncestors: input.frameAncestors ?? [],
      enabled: input.enabled ?? true,
      callbackUrl: input.callbackUrl ?? null,
      callbackMethod: input.callbackMethod ?? "POST",
      callbackEvents: input.callbackEvents ?? null,
      tokenUrl: input.tokenUrl ?? null,
      tokenAuthMethod: input.tokenAuthMethod ?? "client_secret_basic",
      callbackSecretSealed: "pending",
    });
    if (!inserted) throw nameTaken(input.appName);
    const seal = (secret: string, field: SealedField) =>
      deps.secrets.encrypt(secret, secretContext(inserted.id, field));
    const app = await updateApp(tx, inserted.id, {
      ...inserted,
      apiKeySealed: apiKey ? await seal(apiKey, "api_key") : null,
      consumerSecretSealed: input.consumerSecret
        ? await seal(input.consumerSecret, "consumer_secret")
        : null,
      callbackSecretSealed: await seal(generateCallbackSecret(), "callback_secret"),
    });
    if (!app || app === "conflict") throw new Error(`app ${inserted.id} vanished`);
    const client = await insertAppClient(tx, {
      clientId: `cid_${generateToken(24)}`,
      secretHash: hashSecret(clientSecret),
      appId: app.id,
      scopes: input.clientScopes ?? DEFAULT_APP_SCOPES,
    });
    return {
      ...(await details(deps, tx, origin, app, client, [
        "api_key",
        "consumer_secret",
        "callback_secret",
      ])),
      clientSecret,
    };
  });
}

/** Reads one app; 404 when there is none of that name. */
export async function appByName(
  deps: Deps,
  origin: string,
  appName: string,
): Promise<AppDetails> {
  const { app, client } = await loadApp(deps.sql, appName);
  return await details(deps, deps.sql, origin, app, client);
}

/** Lists every app, or the apps of one organization (its id). */
export async function allApps(
  deps: Deps,
  origin: string,
  organizationId?: number,
): Promise<AppDetails[]> {
  const apps = await listApps(deps.sql, organizationId);
  const out: AppDetails[] = [];
  for (const app of apps) {
    const client = await findClientOfApp(deps.sql, app.id);
    if (client) out.push(await details(deps, deps.sql, origin, app, client));
  }
  return out;
}

/**
 * The organization an app is to belong to after a change: moving it to another one is refused
 * while the app has sessions (they stay with its agents), and forgets the app's external ids of
 * agents (they name agents of the organization it leaves).
 */
async function organizationOfPatch(tx: Tx, app: AppRow, slug?: string): Promise<number> {
  if (slug === undefined) return app.organizationId;
  const id = await organizationIdOf(tx, slug, { keep: true });
  if (id === app.organizationId) return id;
  const locked = await lockAppForMove(tx, app.id);
  if (!locked) throw notFound(app.appName);
  if (locked.hasSessions) {
    throw new AppError(
      409,
      "app_has_sessions",
      `App ${app.appName} has sessions: they belong to its organization ${app.organization}, ` +
        "so it cannot move to another one",
      [{ path: "organization", message: "the app has sessions, so it cannot move" }],
    );
  }
  await deleteAgentExternalIds(tx, app.id);
  return id;
}

/**
 * Updates an app; switching authType clears the secrets of the other type, and a new
 * `organization` moves it (see organizationOfPatch).
 */
export async function changeApp(
  deps: Deps,
  origin: string,
  appName: string,
  patch: UpdateAppInput,
): Promise<AppDetails> {
  return await inTransaction(deps, async ({ tx, after }) => {
    const { app, client } = await loadApp(tx, appName);
    after.appsChanged();
    const authType = patch.authType ?? app.authType;
    const switched = authType !== app.authType;
    const consumerKey = authType === "signed_request"
      ? null
      : patch.consumerKey ?? (switched ? null : app.consumerKey);
    const consumerSecretSealed = authType === "signed_request"
      ? null
      : patch.consumerSecret
      ? await deps.secrets.encrypt(patch.consumerSecret, secretContext(app.id, "consumer_secret"))
      : switched
      ? null
      : app.consumerSecretSealed;
    const errors = [
      ...typeErrors(authType, patch, { consumerKey, consumerSecret: consumerSecretSealed }),
      ...callbackErrors(deps.config, authType, patch),
    ];
    if (errors.length) throw new AppError(400, "validation_failed", "Invalid request", errors);
    let apiKeySealed = authType === "signed_request" ? app.apiKeySealed : null;
    if (authType === "signed_request" && patch.apiKey) {
      apiKeySealed = await deps.secrets.encrypt(patch.apiKey, secretContext(app.id, "api_key"));
    }
    // Switching to signed_request without a key generates one: shown once, in this answer.
    const generated = authType === "signed_request" && !apiKeySealed;
    if (generated) {
      apiKeySealed = await deps.secrets.encrypt(
        generateToken(32),
        secretContext(app.id, "api_key"),
      );
    }
    const values: AppValues = {
      organizationId: await organizationOfPatch(tx, app, patch.organization),
      appName: patch.appName ?? app.appName,
      name: patch.name ?? app.name,
      authType,
      apiKeySealed,
      consumerKey,
      consumerSecretSealed,
      implementor: patch.implementor ?? app.implementor,
      replayProtection: patch.replayProtection ?? app.replayProtection,
      maxAgeSeconds: patch.maxAgeSeconds ?? app.maxAgeSeconds,
      frameAncestors: patch.frameAncestors ?? app.frameAncestors,
      enabled: patch.enabled ?? app.enabled,
      callbackUrl: patch.callbackUrl !== undefined ? patch.callbackUrl : app.callbackUrl,
      callbackMethod: patch.callbackMethod ?? app.callbackMethod,
      callbackEvents: patch.callbackEvents !== undefined
        ? patch.callbackEvents
        : app.callbackEvents,
      // Only OAuth apps fetch tokens: switching to signed_request forgets the token URL.
      tokenUrl: authType === "signed_request"
        ? null
        : patch.tokenUrl !== undefined
        ? patch.tokenUrl
        : app.tokenUrl,
      tokenAuthMethod: patch.tokenAuthMethod ?? app.tokenAuthMethod,
      callbackSecretSealed: app.callbackSecretSealed,
    };
    // An app from before callbacks existed gets its signing secret with its first callback URL
    // (shown in full in this answer only).
    const newCallbackSecret = values.callbackUrl !== null && !values.callbackSecretSealed;
    if (newCallbackSecret) {
      values.callbackSecretSealed = await deps.secrets.encrypt(
        generateCallbackSecret(),
        secretContext(app.id, "callback_secret"),
      );
    }
    const updated = await updateApp(tx, app.id, values);
    if (updated === "conflict") throw nameTaken(values.appName);
    if (!updated) throw notFound(appName);
    if (patch.clientScopes) {
      await updateClientScopes(tx, client.id, patch.clientScopes);
      client.scopes = patch.clientScopes;
    }
    // A token grants only while its app is enabled, and only its client's scopes: a change of
    // either drops the client's cached tokens at the commit (other processes within the window).
    if (patch.clientScopes || updated.enabled !== app.enabled) after.clientChanged(client.id);
    return await details(deps, tx, origin, updated, client, [
      ...(generated ? ["api_key" as const] : []),
      ...(newCallbackSecret ? ["callback_secret" as const] : []),
    ]);
  });
}

/**
 * 409 `app_has_sessions` for a delete without cascade: the body carries what the app holds,
 * `{code, message, counts: {sessions, customers, launches}}`.
 */
export class AppHasSessionsError extends AppError {
  /** Refuses deleting `appName`, which holds `counts`. */
  constructor(appName: string, readonly counts: AppHoldings) {
    super(
      409,
      "app_has_sessions",
      `App ${appName} has ${counts.sessions} sessions, ${counts.customers} customers and ` +
        `${counts.launches} launch log records: delete with cascade=true to delete them with it`,
    );
  }

  /** The JSON body, with the counts. */
  override body(): Record<string, unknown> {
    return { ...super.body(), counts: this.counts };
  }
}

/**
 * Deletes an app with its API client and tokens. While it has sessions or customers this is
 * refused (AppHasSessionsError) unless `cascade`, which deletes them and its launch log records
 * in the same transaction. Returns what was deleted with it.
 */
export async function removeApp(
  deps: Deps,
  appName: string,
  options: { cascade?: boolean } = {},
): Promise<AppHoldings> {
  return await inTransaction(deps, async ({ tx, after }) => {
    const { app, client } = await loadApp(tx, appName);
    const counts = await appHoldings(tx, app.id, true);
    if (!counts) throw notFound(appName);
    if (options.cascade) {
      await deleteAppHoldings(tx, app.id);
    } else if (counts.sessions > 0 || counts.customers > 0) {
      throw new AppHasSessionsError(app.appName, counts);
    }
    await deleteApp(tx, app.id);
    after.appsChanged();
    after.clientChanged(client.id);
    return options.cascade ? counts : { sessions: 0, customers: 0, launches: 0 };
  });
}

/** What deleting an app would take along with cascade (its sessions, customers, launch log). */
export async function holdingsOfApp(deps: Deps, appName: string): Promise<AppHoldings> {
  const { app } = await loadApp(deps.sql, appName);
  const counts = await appHoldings(deps.sql, app.id);
  if (!counts) throw notFound(appName);
  return counts;
}

/** Replaces an app's client secret (revoking its live tokens) and returns the new one. */
export async function rotateClientSecret(
  deps: Deps,
  appName: string,
): Promise<{ clientId: string; clientSecret: string }> {
  const clientSecret = generateToken(40);
  // Its cached tokens are forgotten after the commit, so no request re-caches a token between
  // the flush and the revocation.
  const client = await inTransaction(deps, async ({ tx, after }) => {
    const { client } = await loadApp(tx, appName);
    await replaceClientSecret(tx, client.id, hashSecret(clientSecret));
    after.clientChanged(client.id);
    return client;
  });
  return { clientId: client.clientId, clientSecret };
}
