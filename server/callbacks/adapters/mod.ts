/**
 * Implementor classes (spec §2.1) as adapters: one module per class, one interface. An adapter
 * says how a launch's decoded signed request maps onto the payload contract (and which CRM
 * context to keep for callbacks), and how an event becomes the outbound request to its CRM.
 * Signing (Standard Webhooks headers) and authentication (Bearer tokens) are added around what
 * the adapter builds, the same way for every class.
 */
import type { LaunchWarning } from "../../launch/payload_cleaner.ts";
import { fillPlaceholders } from "../contract.ts";

/** What a Canvas-style launch carries for calling its CRM back. */
export interface CrmContext {
  /** The CRM instance's base URL (`client.instanceUrl`). */
  instanceUrl: string;
  /** The CRM's OAuth token for this user (`client.oauthToken`), when it sent one. */
  oauthToken: string | null;
}

/** A decoded signed request mapped onto the payload contract. */
export interface LaunchMapping {
  payload: Record<string, unknown>;
  /** The decoded request as the launch log keeps it (CRM tokens masked). */
  logged: Record<string, unknown>;
  crm: CrmContext | null;
  warnings: LaunchWarning[];
}

/** The event as stored in the outbox: `{type, timestamp, data}`. */
export interface EventBody {
  type: string;
  timestamp: string;
  data: Record<string, unknown>;
}

/** One event on its way out. */
export interface OutboundEvent {
  webhookId: string;
  type: string;
  referenceId: string | null;
  body: EventBody;
}

/** What the adapter builds the request from: the app's configuration and the session's CRM. */
export interface OutboundTarget {
  callbackUrl: string;
  callbackMethod: "POST" | "PUT" | "PATCH";
  crm: { instanceUrl: string } | null;
}

/** The request an adapter builds (signing and authentication are added after). */
export interface OutboundRequest {
  url: string;
  method: string;
  headers: Record<string, string>;
  body: string;
}

/** Thrown when an event cannot be turned into a request (it fails at once, without a retry). */
export class AdapterRefusal extends Error {
  constructor(message: string) {
    super(message);
    this.name = "AdapterRefusal";
  }
}

/** One implementor class. */
export interface Adapter {
  id: "default" | "crm_standard" | "crm_v6_5";
  /** Where the bearer token of a callback comes from: the app's client credentials only, or
   * the session's CRM token first (client credentials when it is missing or refused). */
  auth: "client_credentials" | "session_token";
  mapLaunch(decoded: Record<string, unknown>): LaunchMapping;
  buildRequest(event: OutboundEvent, target: OutboundTarget): OutboundRequest;
}

/**
 * Expands a callback URL template in one pass: `{referenceId}` and `{webhookId}` URL-encoded,
 * `{instanceUrl}` the session's CRM instance (its origin; a trailing slash of a value stored
 * before origins were kept is dropped). A value is never expanded again; the result is checked
 * as it is by checkDestination before it is fetched.
 */
export function expandUrl(
  template: string,
  v: { referenceId: string | null; webhookId: string; instanceUrl: string | null },
): string {
  if (template.includes("{instanceUrl}") && !v.instanceUrl) {
    throw new AdapterRefusal(
      "the callback URL uses {instanceUrl}, but this session's launch carried no client.instanceUrl",
    );
  }
  return fillPlaceholders(template, {
    "{instanceUrl}": (v.instanceUrl ?? "").replace(/\/+$/, ""),
    "{referenceId}": encodeURIComponent(v.referenceId ?? "ping"),
    "{webhookId}": encodeURIComponent(v.webhookId),
  });
}

/** The URL an event goes to: the app's callback URL template expanded for the event. */
export function eventUrl(event: OutboundEvent, target: OutboundTarget): string {
  return expandUrl(target.callbackUrl, {
    referenceId: event.referenceId,
    webhookId: event.webhookId,
    instanceUrl: target.crm?.instanceUrl ?? null,
  });
}

/** The launch mapping of classes that receive the payload contract itself. */
export const asContract: Adapter["mapLaunch"] = (decoded) => ({
  payload: decoded,
  logged: decoded,
  crm: null,
  warnings: [],
});

/** JSON request headers. */
export const JSON_HEADERS = {
  "Content-Type": "application/json",
  "User-Agent": "PortalLauncher-Callbacks/1",
} as const;
