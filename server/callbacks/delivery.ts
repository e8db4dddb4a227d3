/**
 * One delivery attempt of one event: the adapter builds the request, the Standard Webhooks
 * headers sign it, a Bearer token authenticates it (the session's CRM token or the app's
 * client-credentials token; on a 401 a new token is fetched once and the call repeated), and the
 * answer decides what happens next: 2xx delivered; timeouts, network errors, 408, 429 (after
 * Retry-After) and 5xx retried with exponential backoff and jitter until CALLBACK_MAX_ATTEMPTS;
 * redirects and other 4xx fail at once.
 */
import type { Sql } from "../../db/mod.ts";
import {
  type AttemptRecord,
  type ClaimedEvent,
  dropCrmToken,
  type NextStep,
} from "../../db/queries/callback_events.ts";
import { type SecretBox, secretContext } from "../crypto/secret_box.ts";
import { openCached } from "../crypto/secret_cache.ts";
import { adapterOf } from "./adapters/registry.ts";
import { AdapterRefusal, type EventBody, type OutboundRequest } from "./adapters/mod.ts";
import { checkDestination, DestinationRefused, type Resolver } from "./destination.ts";
import type { Answer, CallbackHttpClient } from "./http_client.ts";
import { TokenError, type TokenSource } from "./oauth_client.ts";
import { webhookHeaders } from "./signing.ts";
import { requestSignal, requestTimeoutMs, untilAborted } from "./timeout.ts";
import { inDeliverySpan } from "../observability/tracing.ts";

/** Delivery settings (from the configuration). */
export interface DeliverySettings {
  timeoutMs: number;
  retryBaseMs: number;
  maxAttempts: number;
  allowPrivate: boolean;
}

/** What a delivery needs. */
export interface DeliveryContext {
  sql: Sql;
  secrets: SecretBox;
  tokens: TokenSource;
  settings: DeliverySettings;
  resolve?: Resolver;
  /** Sends each request, to the addresses checked or through a proxy (http_client.ts). */
  http: CallbackHttpClient;
}

/** The longest wait between two attempts, whatever Retry-After says: one day. */
const MAX_RETRY_MS = 86_400_000;

/** A failure that no retry can fix (the event fails at once). */
class Permanent extends Error {}

/** The wait before attempt `attempts + 1`: base × 2^(attempts-1), ±50 % jitter, capped. */
export function backoffMs(retryBaseMs: number, attempts: number, random = Math.random): number {
  const exp = retryBaseMs * 2 ** Math.max(0, attempts - 1);
  return Math.min(MAX_RETRY_MS, Math.round(exp * (0.5 + random())));
}

/** Retry-After in milliseconds (delta-seconds or an HTTP date), or null. */
export function retryAfterMs(header: string | null, now = Date.now()): number | null {
  if (!header) return null;
  const text = header.trim();
  if (/^\d+$/.test(text)) return Math.min(MAX_RETRY_MS, Number(text) * 1000);
  const date = Date.parse(text);
  return Number.isNaN(date) ? null : Math.min(MAX_RETRY_MS, Math.max(0, date - now));
}

/** The callback secrets to sign with: the current one, and the previous during its overlap. */
async function signingSecrets(ctx: DeliveryContext, e: ClaimedEvent): Promise<string[]> {
  const context = secretContext(e.appId, "callback_secret");
  if (!e.app.callbackSecretSealed) throw new Permanent("the app has no callback secret");
  const out = [await openCached(ctx.secrets, e.app.callbackSecretSealed, context)];
  const until = e.app.callbackSecretPreviousExpiresAt;
  if (e.app.callbackSecretPreviousSealed && until && until.getTime() > Date.now()) {
    out.push(await openCached(ctx.secrets, e.app.callbackSecretPreviousSealed, context));
  }
  return out;
}

/** Where the Bearer token comes from for this event, or null when the call is not authenticated. */
class Authenticator {
  #sessionToken: string | null;
  #used: "session" | "client" | null = null;

  constructor(private ctx: DeliveryContext, private e: ClaimedEvent, sessionToken: string | null) {
    this.#sessionToken = sessionToken;
  }

  #clientCredentials(): boolean {
    const a = this.e.app;
    return Boolean(a.tokenUrl && a.consumerKey && a.consumerSecretSealed);
  }

  async #clientToken(): Promise<string> {
    const a = this.e.app;
    return await this.ctx.tokens.token({
      appId: this.e.appId,
      tokenUrl: a.tokenUrl!,
      clientId: a.consumerKey!,
      clientSecret: await this.ctx.secrets.decrypt(
        a.consumerSecretSealed!,
        secretContext(this.e.appId, "consumer_secret"),
      ),
      authMethod: a.tokenAuthMethod,
    });
  }

  /** The Authorization header of the first call, or null. */
  async header(): Promise<string | null> {
    if (this.#sessionToken) {
      this.#used = "session";
      return `Bearer ${this.#sessionToken}`;
    }
    if (!this.#clientCredentials()) return null;
    this.#used = "client";
    return `Bearer ${await this.#clientToken()}`;
  }

  /** After a 401: a new token for one more call, or null when there is none to try. */
  async renewed(): Promise<string | null> {
    if (this.#used === "session") {
      // The launch's CRM token expired: forget it, fall back to client credentials.
      this.#sessionToken = null;
      if (this.e.sessionId) await dropCrmToken(this.ctx.sql, this.e.sessionId);
    } else if (this.#used === "client") {
      this.ctx.tokens.invalidate(this.e.appId);
    } else {
      return null;
    }
    if (!this.#clientCredentials()) return null;
    this.#used = "client";
    return `Bearer ${await this.#clientToken()}`;
  }
}

function buildRequest(e: ClaimedEvent): OutboundRequest {
  if (!e.app.callbackUrl) throw new Permanent("the app's callback URL was removed");
  const adapter = adapterOf(e.app.implementor);
  try {
    return adapter.buildRequest(
      {
        webhookId: e.webhookId,
        type: e.type,
        referenceId: e.referenceId,
        body: e.payload as unknown as EventBody,
      },
      {
        callbackUrl: e.app.callbackUrl,
        callbackMethod: e.app.callbackMethod,
        crm: e.crm ? { instanceUrl: e.crm.instanceUrl } : null,
      },
    );
  } catch (err) {
    if (err instanceof AdapterRefusal) throw new Permanent(err.message);
    throw err;
  }
}

async function sessionToken(ctx: DeliveryContext, e: ClaimedEvent): Promise<string | null> {
  if (adapterOf(e.app.implementor).auth !== "session_token" || !e.crm?.oauthTokenSealed) {
    return null;
  }
  return await ctx.secrets.decrypt(e.crm.oauthTokenSealed, secretContext(e.appId, "crm_token"))
    .catch(() => null);
}

/** One attempt's result: what to record and what to do next. */
export interface Delivered {
  attempt: AttemptRecord;
  next: NextStep;
}

/** The error an attempt records when its process stopped it (its event is due again at once). */
export const INTERRUPTED = "interrupted: the process shut down before an answer";

/** What an attempt came to: delivered, retry, failed (given up) or released (at shutdown). */
export function deliveryResult(d: Delivered): "delivered" | "retry" | "failed" | "released" {
  if (d.next.status === "pending") return d.attempt.error === INTERRUPTED ? "released" : "retry";
  return d.next.status;
}

/**
 * Delivers one claimed event once (with one token renewal after a 401), in its own span linked
 * to the change that emitted it. When `interrupt` aborts (the process is shutting down), the
 * attempt is abandoned at once, whatever it was waiting for, and its event released: pending and
 * due now, for any process to take.
 */
export function deliverEvent(
  ctx: DeliveryContext,
  e: ClaimedEvent,
  interrupt?: AbortSignal,
): Promise<Delivered> {
  return inDeliverySpan(
    { ...e, appName: e.app.appName },
    () => deliverUntraced(ctx, e, interrupt),
    (d) => ({ result: deliveryResult(d), statusCode: d.attempt.statusCode }),
  );
}

async function deliverUntraced(
  ctx: DeliveryContext,
  e: ClaimedEvent,
  interrupt?: AbortSignal,
): Promise<Delivered> {
  const target = { url: e.app.callbackUrl ?? "" };
  if (!interrupt) return await attemptOnce(ctx, e, target);
  const startedAt = new Date();
  const started = performance.now();
  const released = (): Delivered => ({
    attempt: {
      startedAt,
      durationMs: Math.round(performance.now() - started),
      statusCode: null,
      error: INTERRUPTED,
      responseSnippet: null,
      url: target.url,
    },
    next: { status: "pending", retryInMs: 0 },
  });
  if (interrupt.aborted) return released();
  try {
    return await untilAborted(attemptOnce(ctx, e, target, interrupt), interrupt);
  } catch (err) {
    if (interrupt.aborted) return released();
    throw err;
  }
}

async function attemptOnce(
  ctx: DeliveryContext,
  e: ClaimedEvent,
  target: { url: string },
  interrupt?: AbortSignal,
): Promise<Delivered> {
  const { settings } = ctx;
  const startedAt = new Date();
  const started = performance.now();
  const done = (
    statusCode: number | null,
    error: string | null,
    responseSnippet: string | null,
    next: NextStep,
  ): Delivered => ({
    attempt: {
      startedAt,
      durationMs: Math.round(performance.now() - started),
      statusCode,
      error,
      responseSnippet,
      url: target.url,
    },
    next,
  });
  const retry = (retryAfter: number | null = null): NextStep =>
    e.attempts >= settings.maxAttempts
      ? { status: "failed" }
      : { status: "pending", retryInMs: retryAfter ?? backoffMs(settings.retryBaseMs, e.attempts) };
  // One deadline for the whole attempt, inside the worker's lease; each request its own timeout,
  // cut to what is left of the deadline, and the worker's interrupt.
  const deadlineAt = started + settings.timeoutMs * 3;
  const timers: { clear(): void }[] = [];
  try {
    const request = buildRequest(e);
    const url = target.url = request.url;
    // The name's lookup has a request's time too: a resolver that never answers is given up.
    const lookupSignal = () => {
      const lookup = requestSignal(
        requestTimeoutMs(settings.timeoutMs, deadlineAt, performance.now()),
        interrupt,
      );
      timers.push(lookup);
      return lookup.signal;
    };
    const addresses = await checkDestination(url, settings.allowPrivate, ctx.resolve, lookupSignal);
    const signed = webhookHeaders(await signingSecrets(ctx, e), e.webhookId, request.body);
    const auth = new Authenticator(ctx, e, await sessionToken(ctx, e));
    const send = async (authorization: string | null): Promise<Answer> => {
      const own = requestSignal(
        requestTimeoutMs(settings.timeoutMs, deadlineAt, performance.now()),
        interrupt,
      );
      timers.push(own);
      const headers = {
        ...request.headers,
        ...signed,
        ...(authorization ? { Authorization: authorization } : {}),
      };
      return await ctx.http.send(url, {
        method: request.method,
        headers,
        body: request.body,
        signal: own.signal,
        addresses,
      });
    };
    let res = await send(await auth.header());
    let note: string | null = null;
    if (res.status === 401) {
      const renewed = await auth.renewed();
      if (renewed) {
        res = await send(renewed);
        note = "401 with the first token; retried once with a new one";
      }
    }
    const body = res.snippet;
    const s = res.status;
    if (s >= 200 && s < 300) return done(s, note, body, { status: "delivered" });
    if (s >= 300 && s < 400) {
      return done(s, "redirects are not followed: configure the final URL", body, {
        status: "failed",
      });
    }
    if (s === 408 || s === 429 || s >= 500) {
      const wait = s === 429 ? retryAfterMs(res.headers.get("Retry-After")) : null;
      return done(s, note, body, retry(wait));
    }
    return done(s, note ?? `HTTP ${s}: not retried (a client error)`, body, { status: "failed" });
  } catch (err) {
    if (err instanceof Permanent || err instanceof DestinationRefused) {
      return done(null, err.message, null, { status: "failed" });
    }
    if (err instanceof TokenError) return done(null, err.message, null, retry());
    const e2 = err as Error;
    const message = e2.name === "TimeoutError" || e2.name === "AbortError"
      ? `timed out after ${settings.timeoutMs} ms`
      : e2.message;
    return done(null, message, null, retry());
  } finally {
    for (const t of timers) t.clear();
  }
}
