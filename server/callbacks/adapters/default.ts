/**
 * `default`: any application other than the two CRMs. Launches use the payload contract as it
 * is; each event is sent as its Standard Webhooks body (`{type, timestamp, data}`) to the
 * callback URL with the configured method.
 */
import { type Adapter, expandUrl, JSON_HEADERS } from "./mod.ts";

export const defaultAdapter: Adapter = {
  id: "default",
  auth: "client_credentials",
  mapLaunch: (decoded) => ({ payload: decoded, logged: decoded, crm: null, warnings: [] }),
  buildRequest: (event, target) => ({
    url: expandUrl(target.callbackUrl, {
      referenceId: event.referenceId,
      webhookId: event.webhookId,
      instanceUrl: target.crm?.instanceUrl ?? null,
    }),
    method: target.callbackMethod,
    headers: { ...JSON_HEADERS },
    body: JSON.stringify(event.body),
  }),
};
