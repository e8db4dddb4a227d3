/**
 * One delivery attempt without a database or a network: a DeliveryContext whose client sends
 * every request through a stub fetch (as through a proxy), and a claimed event of app 7 with a
 * callback secret, as the delivery tests build them.
 */
import type { DeliveryContext } from "../../../server/callbacks/delivery.ts";
import type { ClaimedEvent } from "../../../db/queries/callback_events.ts";
import type { Sql } from "../../../db/mod.ts";
import type { TokenSource } from "../../../server/callbacks/oauth_client.ts";
import { generateCallbackSecret } from "../../../server/callbacks/signing.ts";
import { CallbackHttpClient } from "../../../server/callbacks/http_client.ts";
import { type SecretBox, secretContext } from "../../../server/crypto/secret_box.ts";

/**
 * A context that sends through the stub `fetch`: no database, no token source unless `more` gives one;
 * requests of 20 ms, private destinations allowed unless `more.settings` says otherwise.
 */
export function offlineContext(
  secrets: SecretBox,
  fetch: typeof globalThis.fetch,
  more: Partial<DeliveryContext> = {},
): DeliveryContext {
  return {
    sql: null as unknown as Sql,
    secrets,
    tokens: null as unknown as TokenSource,
    settings: { timeoutMs: 20, retryBaseMs: 1_000, maxAttempts: 3, allowPrivate: true },
    http: new CallbackHttpClient({ proxied: ["http:", "https:"], fetch }),
    ...more,
  };
}

/**
 * A claimed event `id` of app 7: a `ping` to a default CRM at a loopback URL, with a fresh
 * callback secret, unless `event` or `app` say otherwise.
 */
export async function claimedEvent(
  secrets: SecretBox,
  id: number,
  { event = {}, app = {} }: {
    event?: Partial<Omit<ClaimedEvent, "app">>;
    app?: Partial<ClaimedEvent["app"]>;
  } = {},
): Promise<ClaimedEvent> {
  return {
    id,
    webhookId: `msg_${id}`,
    appId: 7,
    sessionId: null,
    referenceId: null,
    type: "ping",
    payload: { type: "ping", timestamp: new Date().toISOString(), data: {} },
    attempts: 1,
    crm: null,
    ...event,
    app: {
      appName: "crm",
      implementor: "default",
      authType: "signed_request",
      callbackUrl: "http://127.0.0.1:9/hooks",
      callbackMethod: "POST",
      tokenUrl: null,
      tokenAuthMethod: "client_secret_basic",
      consumerKey: null,
      consumerSecretSealed: null,
      callbackSecretSealed: await secrets.encrypt(
        generateCallbackSecret(),
        secretContext(7, "callback_secret"),
      ),
      callbackSecretPreviousSealed: null,
      callbackSecretPreviousExpiresAt: null,
      ...app,
    },
  };
}
