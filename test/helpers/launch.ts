/** Launch helpers for integration tests: an app to launch through, and JSON launches. */
import { signPayload } from "../../server/launch/signed_request.ts";
import { freshnessFields } from "../../server/launch/contract.ts";
import type { Json } from "./payload.ts";
import type { TestService } from "./service.ts";

/** An app created through the admin API, with its API key and API client. */
export interface TestApp {
  appName: string;
  apiKey: string;
  clientId: string;
  clientSecret: string;
}

/** Creates a signed_request app named `appName`. */
export async function createTestApp(
  svc: TestService,
  adminToken: string,
  appName = "crm",
  extra: Json = {},
): Promise<TestApp> {
  const res = await svc.api("POST", "/api/v1/admin/apps", adminToken, {
    appName,
    name: appName.toUpperCase(),
    authType: "signed_request",
    ...extra,
  });
  if (res.status !== 201) throw new Error(`create app: ${res.status} ${await res.text()}`);
  return await res.json();
}

/**
 * Signs a launch as a real sender does: with a fresh `issuedAt` and a random `nonce` at the top
 * level, unless the payload already has either (then it is signed exactly as given).
 */
export async function signLaunch(payload: Json, apiKey: string): Promise<string> {
  const given = payload && typeof payload === "object" &&
    ("issuedAt" in payload || "nonce" in payload);
  const body = given ? payload : { ...payload, ...freshnessFields() };
  return await signPayload(JSON.stringify(body), apiKey);
}

/** Launches `payload` with `Accept: application/json`; throws unless it succeeds. */
export async function launchOk(
  svc: TestService,
  app: TestApp,
  payload: Json,
): Promise<{ sessionId: number; agentId: number; customerId: number; launchId: number }> {
  const res = await svc.request(`/portal/api/auth/app/${app.appName}`, {
    method: "POST",
    headers: { Accept: "application/json" },
    body: new URLSearchParams({
      signed_request: await signLaunch(payload, app.apiKey),
    }),
  });
  if (res.status !== 200) throw new Error(`launch: ${res.status} ${await res.text()}`);
  return await res.json();
}

/** A client-credentials token of `app`'s own API client; throws unless the token endpoint gives one. */
export async function appClientToken(svc: TestService, app: TestApp): Promise<string> {
  const res = await svc.request("/api/v1/oauth2/token", {
    method: "POST",
    body: new URLSearchParams({
      grant_type: "client_credentials",
      client_id: app.clientId,
      client_secret: app.clientSecret,
    }),
  });
  if (res.status !== 200) throw new Error(`token: ${res.status} ${await res.text()}`);
  return (await res.json()).access_token;
}
