/**
 * The portal → host page message protocol, version 1: the one module the portal's pages (the
 * launch error page, the session screen's bridge script) and the `<portal-launcher>` element
 * share. Every message is a plain object `{type, version, ...fields}` posted with
 * `postMessage(message, origin)` to each of the launch's allowed origins only; receivers check
 * `event.origin` and `event.source` and read it with `readHostMessage`, which ignores anything
 * else (other libraries' messages, newer fields, unknown types).
 *
 * @example
 * ```ts
 * // portal side
 * parent.postMessage(hostMessage.ready({ sessionId: 7, launchId: 9, flavor: "embedded" }), origin);
 * // host side
 * const m = readHostMessage(event.data);
 * if (m?.type === MESSAGE_TYPES.ready) console.log(m.sessionId);
 * ```
 */
import { MESSAGE_TYPES } from "./contract.ts";

/** The protocol version every message carries. */
export const HOST_PROTOCOL_VERSION = 1;

/** The `code` of the error a session page posts when the browser refused the login cookie. */
export const COOKIES_BLOCKED = "cookies_blocked";

/** What the agent did to the session (`MESSAGE_TYPES.session`). */
export const SESSION_CHANGES = [
  "closed",
  "reopened",
  "assigned",
  "transferred",
  "path-completed",
] as const;

/** One session change. */
export type SessionChange = typeof SESSION_CHANGES[number];

/** One problem with one field, as launch errors list them. */
export interface MessageFieldError {
  path: string;
  message: string;
}

/** `MESSAGE_TYPES.ready`: the session screen is shown. */
export interface ReadyMessage {
  type: typeof MESSAGE_TYPES.ready;
  version: number;
  sessionId: number;
  launchId: number | null;
  flavor: string;
}

/** `MESSAGE_TYPES.resize`: the page's content height, in CSS pixels. */
export interface ResizeMessage {
  type: typeof MESSAGE_TYPES.resize;
  version: number;
  height: number;
}

/** `MESSAGE_TYPES.session`: the agent changed the session. */
export interface SessionMessage {
  type: typeof MESSAGE_TYPES.session;
  version: number;
  sessionId: number;
  event: SessionChange;
}

/**
 * `MESSAGE_TYPES.error`: the launch was refused (`status`, `message`, `errors`), or the portal
 * cannot work where it was opened (`code: "cookies_blocked"`).
 */
export interface ErrorMessage {
  type: typeof MESSAGE_TYPES.error;
  version: number;
  status: number;
  code: string | null;
  message: string;
  errors: MessageFieldError[];
}

/** Any message of the protocol. */
export type HostMessage = ReadyMessage | ResizeMessage | SessionMessage | ErrorMessage;

/**
 * The origins messages may go to: the app's exact allowed frame ancestors (a wildcard entry such
 * as `https://*.example.com` cannot be a postMessage target).
 */
export function messageTargets(frameAncestors: string[]): string[] {
  return frameAncestors.filter((origin) => !origin.includes("*"));
}

/** Builders: the only way the portal makes a message. */
export const hostMessage = {
  ready: (m: Omit<ReadyMessage, "type" | "version">): ReadyMessage => ({
    type: MESSAGE_TYPES.ready,
    version: HOST_PROTOCOL_VERSION,
    ...m,
  }),
  resize: (height: number): ResizeMessage => ({
    type: MESSAGE_TYPES.resize,
    version: HOST_PROTOCOL_VERSION,
    height: Math.ceil(height),
  }),
  session: (m: Omit<SessionMessage, "type" | "version">): SessionMessage => ({
    type: MESSAGE_TYPES.session,
    version: HOST_PROTOCOL_VERSION,
    ...m,
  }),
  error: (m: Omit<ErrorMessage, "type" | "version">): ErrorMessage => ({
    type: MESSAGE_TYPES.error,
    version: HOST_PROTOCOL_VERSION,
    ...m,
  }),
};

const isInt = (v: unknown): v is number => typeof v === "number" && Number.isSafeInteger(v);

function fieldErrors(v: unknown): MessageFieldError[] {
  if (!Array.isArray(v)) return [];
  return v.filter((e) => e && typeof e.path === "string" && typeof e.message === "string")
    .map((e) => ({ path: e.path, message: e.message }));
}

/**
 * Reads a received message: the typed message, or null for anything that is not one (a message
 * without `version` is read as version 1, as the first portals sent errors without it).
 */
export function readHostMessage(data: unknown): HostMessage | null {
  if (!data || typeof data !== "object") return null;
  const d = data as Record<string, unknown>;
  const version = d.version === undefined ? 1 : d.version;
  if (!isInt(version) || version < 1) return null;
  switch (d.type) {
    case MESSAGE_TYPES.ready:
      if (!isInt(d.sessionId) || typeof d.flavor !== "string") return null;
      return {
        type: d.type,
        version,
        sessionId: d.sessionId,
        launchId: isInt(d.launchId) ? d.launchId : null,
        flavor: d.flavor,
      };
    case MESSAGE_TYPES.resize:
      if (typeof d.height !== "number" || !(d.height >= 0) || d.height > 1e6) return null;
      return { type: d.type, version, height: Math.ceil(d.height) };
    case MESSAGE_TYPES.session:
      if (!isInt(d.sessionId) || !SESSION_CHANGES.includes(d.event as SessionChange)) return null;
      return { type: d.type, version, sessionId: d.sessionId, event: d.event as SessionChange };
    case MESSAGE_TYPES.error:
      return {
        type: d.type,
        version,
        status: isInt(d.status) ? d.status : 0,
        code: typeof d.code === "string" ? d.code : null,
        message: typeof d.message === "string" ? d.message : "The portal could not open",
        errors: fieldErrors(d.errors),
      };
    default:
      return null;
  }
}
