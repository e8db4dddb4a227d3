/** An app as administrators see it: settings, masked secrets, key usage, template. */
import { type SealedField, secretContext } from "../crypto/secret_box.ts";
import type { Tx } from "../../db/mod.ts";
import { type AppRow, keyUsage } from "../../db/queries/apps.ts";
import type { ApiClientRow } from "../../db/queries/api_clients.ts";
import { listCustomFields } from "../../db/queries/settings.ts";
import type { Deps } from "../deps.ts";
import { launchTemplate } from "./launch_template.ts";
import { launchUrl } from "../launch/contract.ts";
import { SUBSCRIBABLE_EVENTS } from "./callback_settings.ts";

/** An app as administrators see it, secrets decrypted. */
export interface AppDetails {
  appName: string;
  name: string;
  /** The slug of the organization owning the app. */
  organization: string;
  authType: AppRow["authType"];
  implementor: AppRow["implementor"];
  replayProtection: AppRow["replayProtection"];
  maxAgeSeconds: number;
  /** When each signing key last verified a launch ("safe to revoke" when the previous is idle). */
  signingKeys: {
    currentLastUsedAt: string | null;
    previousExpiresAt: string | null;
    previousLastUsedAt: string | null;
  };
  frameAncestors: string[];
  enabled: boolean;
  callbackUrl: string | null;
  callbackMethod: AppRow["callbackMethod"];
  /** The event types sent (every type when the app did not choose). */
  callbackEvents: string[];
  tokenUrl: string | null;
  tokenAuthMethod: AppRow["tokenAuthMethod"];
  /** The Standard Webhooks signing secret (in full only from create and rotation). */
  callbackSecret: string | null;
  /** Until when the previous callback secret still signs (both signatures are sent). */
  callbackSecretPreviousExpiresAt: string | null;
  apiKey: string | null;
  consumerKey: string | null;
  consumerSecret: string | null;
  clientId: string;
  clientScopes: string[];
  launchUrl: string;
  template: Record<string, unknown>;
  createdAt: string;
  updatedAt: string;
}

async function signingKeyUsage(tx: Tx, appId: number): Promise<AppDetails["signingKeys"]> {
  const u = await keyUsage(tx, appId);
  const iso = (d: Date | null) => d ? new Date(d).toISOString() : null;
  return {
    currentLastUsedAt: iso(u.currentLastUsedAt),
    previousExpiresAt: iso(u.previousExpiresAt),
    previousLastUsedAt: iso(u.previousLastUsedAt),
  };
}

/** A secret as every read shows it: its last 4 characters only. */
export function maskSecret(secret: string): string {
  return `••••••••${secret.slice(-4)}`;
}

/**
 * An app as administrators see it. Secrets are shown in full only by the call that made them
 * (`reveal`: create); every other read shows them masked.
 */
export async function details(
  deps: Deps,
  tx: Tx,
  origin: string,
  app: AppRow,
  client: ApiClientRow,
  reveal: SealedField[] = [],
): Promise<AppDetails> {
  const fields = await listCustomFields(tx);
  const shown = async (sealed: string | null, field: SealedField) => {
    if (!sealed) return null;
    const secret = await deps.secrets.decrypt(sealed, secretContext(app.id, field));
    return reveal.includes(field) ? secret : maskSecret(secret);
  };
  return {
    appName: app.appName,
    name: app.name,
    organization: app.organization,
    authType: app.authType,
    implementor: app.implementor,
    replayProtection: app.replayProtection,
    maxAgeSeconds: app.maxAgeSeconds,
    signingKeys: await signingKeyUsage(tx, app.id),
    frameAncestors: app.frameAncestors,
    enabled: app.enabled,
    callbackUrl: app.callbackUrl,
    callbackMethod: app.callbackMethod,
    callbackEvents: app.callbackEvents ?? [...SUBSCRIBABLE_EVENTS],
    tokenUrl: app.tokenUrl,
    tokenAuthMethod: app.tokenAuthMethod,
    callbackSecret: await shown(app.callbackSecretSealed, "callback_secret"),
    callbackSecretPreviousExpiresAt: app.callbackSecretPreviousSealed &&
        app.callbackSecretPreviousExpiresAt
      ? new Date(app.callbackSecretPreviousExpiresAt).toISOString()
      : null,
    apiKey: await shown(app.apiKeySealed, "api_key"),
    consumerKey: app.consumerKey,
    consumerSecret: await shown(app.consumerSecretSealed, "consumer_secret"),
    clientId: client.clientId,
    clientScopes: client.scopes,
    launchUrl: launchUrl(`${origin}${deps.config.portalPrefix}`, app.appName),
    template: launchTemplate(fields.map((f) => f.name)),
    createdAt: app.createdAt.toISOString(),
    updatedAt: app.updatedAt.toISOString(),
  };
}
