/**
 * What the contract test's requests are made of: a request, a probe (a request with the status
 * it must answer), the context the operations work on, how one operation is tested, and helpers
 * that make targets through the admin API.
 */
import type { TestService } from "../../helpers/service.ts";
import type { Json } from "../../helpers/payload.ts";
import { uniqueId } from "../../helpers/shared.ts";

/** Who a request is sent as. */
export type Auth = "full" | "read" | "adminOnly" | "none" | "unknown" | "malformed";

/** One request to an operation: what fills its path template, query, headers and body. */
export interface Request {
  params?: Record<string, string>;
  query?: Record<string, string>;
  headers?: Record<string, string>;
  /** A JSON body. */
  json?: unknown;
  /** An application/x-www-form-urlencoded body. */
  form?: Record<string, string>;
  /** A body sent as it is, with its Content-Type. */
  raw?: { type: string; body: string };
}

/** A request with what it is and the status it must answer (any declared one when absent). */
export interface Probe extends Request {
  what: string;
  /** The bearer token sent (bearer operations; default: one with every scope). */
  auth?: Auth;
  expect?: number;
  /** Runs `send` in a state the request needs (e.g. a failure limiter that refuses). */
  around?: (send: () => Promise<void>) => Promise<void>;
}

/** What the operations work on: the service, tokens, and things a launch made. */
export interface Ctx {
  svc: TestService;
  tokens: Record<"full" | "read" | "adminOnly", string>;
  /** A signed_request app with a launch (so it has a session, a customer and an agent). */
  app: { appName: string; apiKey: string };
  /** An app with a callback URL (its events stay pending: no delivery worker runs). */
  callbackApp: { appName: string };
  launch: { sessionId: number; agentId: number; customerId: number; launchId: number };
  deliveryId: number;
  categoryUid: string;
}

/** How to test one operation. */
export interface Case {
  /** A valid request; a new target each call. */
  setup(ctx: Ctx): Request | Promise<Request>;
  /** The status the valid request answers. */
  ok: number;
  /** Requests particular to the operation. */
  more?(ctx: Ctx): Probe[] | Promise<Probe[]>;
}

/** Sends `body` to the admin API and answers the parsed 2xx body; throws on anything else. */
export async function adminCall(ctx: Ctx, method: string, path: string, body?: unknown) {
  const res = await ctx.svc.api(method, `/api/v1/admin${path}`, ctx.tokens.full, body);
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return text ? JSON.parse(text) : null;
}

/** A new app (signed_request unless `authType` says otherwise); answers its App Name. */
export async function newApp(ctx: Ctx, extra: Json = {}): Promise<string> {
  const appName = uniqueId("app");
  await adminCall(ctx, "POST", "/apps", {
    appName,
    name: "Contract CRM",
    authType: "signed_request",
    ...(extra.authType === "oauth2_signed_request"
      ? { consumerKey: "3MVG9contract", consumerSecret: "c".repeat(32) }
      : {}),
    ...extra,
  });
  return appName;
}

/** A new guided path in the context's category. */
export async function newPath(ctx: Ctx): Promise<{ uid: string }> {
  return await adminCall(ctx, "POST", "/paths", {
    title: "Paper jam",
    categoryUid: ctx.categoryUid,
  });
}
