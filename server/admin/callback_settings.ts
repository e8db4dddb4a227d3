/**
 * An app's callbacks as administrators manage them: the configuration rules (destinations that
 * pass the private-network rule, a token URL only for OAuth apps), the signing-secret rotation
 * with an overlap, and the test event delivered while the administrator waits.
 */
import { findAppByName, replaceCallbackSecret } from "../../db/queries/apps.ts";
import type { AppRow } from "../../db/queries/apps.ts";
import { EVENT_TYPES } from "../callbacks/contract.ts";
import { destinationProblem } from "../callbacks/destination.ts";
import { generateCallbackSecret } from "../callbacks/signing.ts";
import type { Config } from "../config.ts";
import { secretContext } from "../crypto/secret_box.ts";
import type { Deps } from "../deps.ts";
import { AppError, type FieldError } from "../http/errors.ts";

/** The event types an app can subscribe to (every type but the test ping). */
export const SUBSCRIBABLE_EVENTS = EVENT_TYPES.filter((t) => t !== "ping");

/** How long the previous callback secret keeps signing after a rotation, by default: a day. */
export const DEFAULT_SECRET_OVERLAP_SECONDS = 86_400;

/** The longest overlap: 30 days. */
export const MAX_SECRET_OVERLAP_SECONDS = 2_592_000;

/** What is wrong with the callback fields of a create or update, by field. */
export function callbackErrors(
  config: Pick<Config, "callbackAllowPrivateNetworks">,
  authType: AppRow["authType"],
  given: { callbackUrl?: string | null; tokenUrl?: string | null },
): FieldError[] {
  const errors: FieldError[] = [];
  for (const field of ["callbackUrl", "tokenUrl"] as const) {
    const value = given[field];
    if (!value) continue;
    const problem = destinationProblem(value, config.callbackAllowPrivateNetworks);
    if (problem) errors.push({ path: field, message: problem });
  }
  if (given.tokenUrl && authType !== "oauth2_signed_request") {
    errors.push({
      path: "tokenUrl",
      message: "applies only to authType oauth2_signed_request (it uses the consumer key " +
        "and secret)",
    });
  }
  return errors;
}

async function appOrNotFound(deps: Deps, appName: string): Promise<AppRow> {
  const app = await findAppByName(deps.sql, appName);
  if (!app) throw new AppError(404, "app_not_found", `Unknown application: ${appName}`);
  return app;
}

/** Replaces the callback secret; the old one also signs for `previousSecretValidSeconds`. */
export async function rotateCallbackSecret(
  deps: Deps,
  appName: string,
  previousSecretValidSeconds = DEFAULT_SECRET_OVERLAP_SECONDS,
): Promise<{ callbackSecret: string; previousSecretExpiresAt: Date | null }> {
  const app = await appOrNotFound(deps, appName);
  const callbackSecret = generateCallbackSecret();
  const previousSecretExpiresAt = previousSecretValidSeconds > 0 && app.callbackSecretSealed
    ? new Date(Date.now() + previousSecretValidSeconds * 1000)
    : null;
  await replaceCallbackSecret(deps.sql, app.id, {
    sealed: await deps.secrets.encrypt(callbackSecret, secretContext(app.id, "callback_secret")),
    previousExpiresAt: previousSecretExpiresAt,
  });
  return { callbackSecret, previousSecretExpiresAt };
}

/** The outcome of a test event. */
export interface TestDelivery {
  eventId: number;
  webhookId: string;
  delivered: boolean;
  status: "delivered" | "pending" | "failed";
  attempt: {
    url: string;
    statusCode: number | null;
    durationMs: number;
    error: string | null;
    responseSnippet: string | null;
  };
}

/**
 * Sends a `ping` through the outbox and delivers it now: the answer is the attempt's result, and
 * the event stays in the delivery log (retried like any other when it failed).
 */
export async function sendTestEvent(deps: Deps, appName: string): Promise<TestDelivery> {
  const app = await appOrNotFound(deps, appName);
  const sent = await deps.deliveries.pingNow(app.id, {
    type: "ping",
    timestamp: new Date().toISOString(),
    data: { appName: app.appName, message: "Test event from Portal Launcher" },
  });
  if (!sent) {
    throw new AppError(
      409,
      "callbacks_not_configured",
      `${app.appName} has no callback URL: set callbackUrl first`,
      [{ path: "callbackUrl", message: "required to send events" }],
    );
  }
  const { event: ping, result } = sent;
  return {
    eventId: ping.id,
    webhookId: ping.webhookId,
    delivered: result.next.status === "delivered",
    status: result.next.status,
    attempt: {
      url: result.attempt.url,
      statusCode: result.attempt.statusCode,
      durationMs: result.attempt.durationMs,
      error: result.attempt.error,
      responseSnippet: result.attempt.responseSnippet,
    },
  };
}
