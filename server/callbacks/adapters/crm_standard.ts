/**
 * `crm_standard`: a CRM that launches the way Salesforce Canvas does, and is called back through
 * its own REST API.
 *
 * Launch: a Canvas-style signed request (`context.user.userId/email/firstName/lastName/language`,
 * `context.environment.parameters`, `client.oauthToken`, `client.instanceUrl`, top-level
 * `issuedAt`) is mapped onto the payload contract: userId → `context.user.id`, firstName →
 * `first_name`, lastName → `last_name`, language → `locale` (the seed's own names win when both
 * are sent); `parameters` are the seed's parameters unchanged. `client.instanceUrl` (as its
 * origin, when it passes the destination rules: launch/steps.ts sealCrmToken) and
 * `client.oauthToken` are kept (the token sealed) on the session for its callbacks. A payload in
 * the seed's own shape passes unchanged.
 *
 * Callback: one record per event, written through the CRM's REST API under `{instanceUrl}` with
 * the launch's OAuth token (or a client-credentials token when it is missing or expired). The
 * recommended callback URL upserts by the event's id, so a redelivered event updates the same
 * record instead of adding one:
 * `{instanceUrl}/services/data/v62.0/sobjects/Portal_Event__c/Webhook_Id__c/{webhookId}` with
 * method PATCH. docs/crm.md shows a worked example.
 */
import { type Adapter, eventUrl, JSON_HEADERS, type LaunchMapping } from "./mod.ts";

type Json = Record<string, unknown>;

function object(value: unknown): Json | null {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? value as Json
    : null;
}

/** True when the payload has Canvas's shape (a `client` object or `context.user.userId`). */
function isCanvas(decoded: Json): boolean {
  return object(decoded.client) !== null ||
    object(object(decoded.context)?.user)?.userId !== undefined;
}

/** The seed's user from a Canvas user: Canvas names mapped, seed names kept. */
function seedUser(user: Json, topLevelUserId: unknown): Json {
  const out: Json = {};
  const pick = (seedName: string, ...canvasNames: string[]) => {
    for (const name of [seedName, ...canvasNames]) {
      if (user[name] !== undefined && user[name] !== null && user[name] !== "") {
        out[seedName] = user[name];
        return;
      }
    }
  };
  pick("id", "userId");
  if (out.id === undefined && topLevelUserId !== undefined) out.id = topLevelUserId;
  pick("email");
  pick("first_name", "firstName");
  pick("last_name", "lastName");
  pick("phone", "phoneNumber");
  pick("locale", "language", "locale");
  pick("teams");
  return out;
}

export const crmStandardAdapter: Adapter = {
  id: "crm_standard",
  auth: "session_token",
  mapLaunch(decoded): LaunchMapping {
    if (!isCanvas(decoded)) return { payload: decoded, logged: decoded, crm: null, warnings: [] };
    const context = object(decoded.context) ?? {};
    const environment = object(context.environment) ?? {};
    const client = object(decoded.client) ?? {};
    const payload: Json = {
      algorithm: decoded.algorithm,
      context: {
        user: seedUser(object(context.user) ?? {}, decoded.userId),
        environment: { parameters: object(environment.parameters) ?? {} },
      },
    };
    if (decoded.issuedAt !== undefined) payload.issuedAt = decoded.issuedAt;
    if (decoded.nonce !== undefined) payload.nonce = decoded.nonce;
    const instanceUrl = typeof client.instanceUrl === "string" ? client.instanceUrl : null;
    const warnings: LaunchMapping["warnings"] = [];
    if (client.instanceUrl !== undefined && !instanceUrl) {
      warnings.push({
        path: "client.instanceUrl",
        code: "ignored_field",
        message: "expected the CRM instance's URL as text; callbacks cannot use {instanceUrl}",
      });
    }
    // The launch log keeps the request, but never the CRM's token.
    const logged = typeof client.oauthToken === "string"
      ? { ...decoded, client: { ...client, oauthToken: "[redacted]" } }
      : decoded;
    return {
      payload,
      logged,
      crm: instanceUrl
        ? {
          instanceUrl,
          oauthToken: typeof client.oauthToken === "string" && client.oauthToken
            ? client.oauthToken
            : null,
        }
        : null,
      warnings,
    };
  },
  buildRequest(event, target) {
    const data = event.body.data;
    const person = (value: unknown) => object(value);
    return {
      url: eventUrl(event, target),
      method: target.callbackMethod,
      headers: { ...JSON_HEADERS },
      body: JSON.stringify({
        Case__c: event.referenceId,
        Event_Type__c: event.type,
        Occurred_At__c: event.body.timestamp,
        Session_Id__c: data.sessionId ?? null,
        Session_Status__c: data.status ?? null,
        Reference_Number__c: data.referenceNumber ?? null,
        Assignee_Email__c: person(data.assignee)?.email ?? null,
        Customer_External_Id__c: person(data.customer)?.externalId ?? null,
        Path_Uid__c: data.pathUid ?? null,
      }),
    };
  },
};
