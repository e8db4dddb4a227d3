/**
 * `default`: any application other than the two CRMs. Launches use the payload contract as it
 * is; each event is sent as its Standard Webhooks body (`{type, timestamp, data}`) to the
 * callback URL with the configured method.
 */
import { type Adapter, asContract, eventUrl, JSON_HEADERS } from "./mod.ts";

export const defaultAdapter: Adapter = {
  id: "default",
  auth: "client_credentials",
  mapLaunch: asContract,
  buildRequest: (event, target) => ({
    url: eventUrl(event, target),
    method: target.callbackMethod,
    headers: { ...JSON_HEADERS },
    body: JSON.stringify(event.body),
  }),
};
