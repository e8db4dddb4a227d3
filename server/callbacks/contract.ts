/**
 * The callback contract other tools are pointed at: event type names, the Standard Webhooks
 * header names, the secret format and the configuration choices. docs/crm.md documents each.
 */

/** Every event type, in the order the docs list them. `ping` is only sent by the test button. */
export const EVENT_TYPES = [
  "session.created",
  "session.updated",
  "session.assigned",
  "session.closed",
  "session.reopened",
  "path.completed",
  "remote.requested",
  "remote.invited",
  "remote.started",
  "remote.ended",
  "ping",
] as const;

/** An event type name. */
export type EventType = typeof EVENT_TYPES[number];

/** Standard Webhooks headers (https://www.standardwebhooks.com/). */
export const WEBHOOK_HEADERS = {
  id: "webhook-id",
  timestamp: "webhook-timestamp",
  signature: "webhook-signature",
} as const;

/** Prefix of a callback signing secret: `whsec_` + Base64 of the key bytes. */
export const SECRET_PREFIX = "whsec_";

/** Bytes of a generated callback secret (Standard Webhooks asks for 24 to 64). */
export const SECRET_BYTES = 32;

/** HTTP methods a callback may use. */
export const CALLBACK_METHODS = ["POST", "PUT", "PATCH"] as const;

/** How the service authenticates at a CRM's token endpoint (RFC 6749 §2.3.1). */
export const TOKEN_AUTH_METHODS = ["client_secret_basic", "client_secret_post"] as const;

/** Placeholders a callback URL template may hold. */
export const URL_PLACEHOLDERS = ["{referenceId}", "{webhookId}", "{instanceUrl}"] as const;

/** A placeholder of a callback URL template. */
export type UrlPlaceholder = typeof URL_PLACEHOLDERS[number];

const PLACEHOLDER_PATTERN = new RegExp(
  URL_PLACEHOLDERS.map((p) => p.replace(/[{}]/g, "\\$&")).join("|"),
  "g",
);

/**
 * Replaces every placeholder of a URL template in one pass: a value put in is never scanned
 * again, so a value holding `{webhookId}` stays as it is.
 */
export function fillPlaceholders(
  template: string,
  values: Record<UrlPlaceholder, string>,
): string {
  return template.replace(PLACEHOLDER_PATTERN, (p) => values[p as UrlPlaceholder]);
}

/** Response bodies are read up to this many bytes for the delivery log. */
export const RESPONSE_SNIPPET_BYTES = 4096;

/** What a delivery worker claims at once. */
export const CLAIM_BATCH = 64;
