/**
 * What the element exchanges with the host's sign-url and the portal's dry run: pure functions
 * with no DOM, so they are unit-tested directly.
 */
import type { SessionChange } from "../../server/launch/host_messages.ts";
import { WARM_UP_ROUTE } from "../../server/launch/contract.ts";

/** Where the portal opens. */
export type LaunchTarget = "tab" | "self" | "iframe";

/** The targets the element accepts. */
export const TARGETS: readonly LaunchTarget[] = ["tab", "self", "iframe"];

/** One problem with one field. */
export interface FieldProblem {
  path: string;
  message: string;
}

/** Detail of `portal-launch-start`. */
export interface LaunchStartDetail {
  target: LaunchTarget;
  parameters: Record<string, unknown>;
}

/** Detail of `portal-launched`: the signed request was submitted to the target. */
export interface LaunchedDetail {
  target: LaunchTarget;
  action: string;
}

/**
 * Detail of `portal-launch-error`. `status` is 0 when no HTTP status applies; `code` is the
 * portal's stable error code (e.g. `cookies_blocked`), the element's own (`popup_blocked`,
 * `sign_url_unreachable`, ...) or null.
 */
export interface LaunchErrorDetail {
  status: number;
  code: string | null;
  message: string;
  errors: FieldProblem[];
}

/** Where a launch stands (the element's `status` property and attribute). */
export type LaunchStatus = "idle" | "signing" | "validating" | "open" | "error";

/** Detail of `portal-ready`: the portal shows the session screen. */
export interface PortalReadyDetail {
  sessionId: number;
  launchId: number | null;
  flavor: string;
}

/** Detail of `portal-session-change`: what the agent did to the session. */
export interface SessionChangeDetail {
  sessionId: number;
  event: SessionChange;
}

/** What sign-url answers. */
export interface SignedLaunch {
  action: string;
  signedRequest: string;
}

/** The `parameters` attribute: a JSON object; anything else is an empty object. */
export function parseParameters(value: string | null): Record<string, unknown> {
  if (!value) return {};
  try {
    const parsed = JSON.parse(value);
    return parsed && typeof parsed === "object" && !Array.isArray(parsed) ? parsed : {};
  } catch {
    return {};
  }
}

function problems(value: unknown): FieldProblem[] {
  if (!Array.isArray(value)) return [];
  return value.filter((e) =>
    e && typeof e === "object" && typeof e.path === "string" && typeof e.message === "string"
  ).map((e) => ({ path: e.path, message: e.message }));
}

async function jsonOf(res: Response): Promise<Record<string, unknown> | null> {
  try {
    const body = await res.json();
    return body && typeof body === "object" ? body : null;
  } catch {
    return null;
  }
}

/**
 * Reads sign-url's answer: `{action, signedRequest}` on 2xx; otherwise throws a LaunchErrorDetail
 * with the host's `message` (and `errors`) when it sends them.
 */
export async function readSignResponse(res: Response): Promise<SignedLaunch> {
  const body = await jsonOf(res);
  if (!res.ok) {
    throw {
      status: res.status,
      code: typeof body?.code === "string" ? body.code : null,
      message: typeof body?.message === "string"
        ? body.message
        : `The sign-url answered ${res.status} ${res.statusText}`.trim(),
      errors: problems(body?.errors),
    } satisfies LaunchErrorDetail;
  }
  if (typeof body?.action !== "string" || typeof body?.signedRequest !== "string") {
    throw {
      status: res.status,
      code: "sign_url_invalid_answer",
      message: "The sign-url must answer JSON {action, signedRequest}",
      errors: [],
    } satisfies LaunchErrorDetail;
  }
  return { action: body.action, signedRequest: body.signedRequest };
}

/** Reads the portal's dry run: resolves on `{ok: true}`, else throws the portal's error. */
export async function readValidateResponse(res: Response): Promise<void> {
  const body = await jsonOf(res);
  if (res.ok && body?.ok === true) return;
  throw {
    status: res.status,
    code: typeof body?.code === "string" ? body.code : null,
    message: typeof body?.message === "string"
      ? body.message
      : `The portal's dry run answered ${res.status}`,
    errors: problems(body?.errors),
  } satisfies LaunchErrorDetail;
}

/**
 * The warm-up page of the element's `portal-url` (http or https only; a query or fragment of
 * the given URL is dropped), or null.
 */
export function warmUpUrl(portalUrl: string, base = globalThis.location?.href): string | null {
  if (!portalUrl) return null;
  try {
    const url = new URL(portalUrl, base);
    if (url.protocol !== "https:" && url.protocol !== "http:") return null;
    url.pathname = `${url.pathname.replace(/\/+$/, "")}${WARM_UP_ROUTE}`;
    url.search = "";
    url.hash = "";
    return url.href;
  } catch {
    return null;
  }
}

/** How long a portal frame may take to report `ready` (the element's `frame-timeout`), in ms. */
export const FRAME_TIMEOUT_MS = 8000;

/** What to do when the portal refuses this page: allow its origin (the host page's own). */
function originAdvice(origin: string): FieldProblem[] {
  return [{ path: "origin", message: `Add ${origin} to the app's allowed origins` }];
}

/** The portal frame did not report `ready` in time: the portal most likely refused the framing. */
export function frameBlocked(origin: string, timeoutMs: number): LaunchErrorDetail {
  return {
    status: 0,
    code: "frame_blocked",
    message: `The portal did not open in its frame within ${timeoutMs / 1000} s: it refuses to ` +
      `be framed by ${origin}. Add ${origin} to the app's allowed origins.`,
    errors: originAdvice(origin),
  };
}

/**
 * Why the dry run's fetch failed: a browser reports a CORS refusal and an unreachable portal
 * alike, so the portal is probed without CORS (an opaque answer of any status means it is up):
 * up means it refused this page's origin (`origin_not_allowed`), else `portal_unreachable`.
 */
export async function validateFailure(
  action: string,
  err: Error,
  origin = globalThis.location?.origin ?? "",
  probe: (url: string) => Promise<unknown> = (url) => fetch(url, { mode: "no-cors" }),
): Promise<LaunchErrorDetail> {
  const reachable = await probe(new URL(action, globalThis.location?.href).origin + "/").then(
    () => true,
    () => false,
  );
  if (!reachable) {
    return launchFailure(0, "portal_unreachable", `Cannot reach the portal: ${err.message}`);
  }
  return {
    status: 0,
    code: "origin_not_allowed",
    message: `The portal refused the dry run from ${origin}: add ${origin} to the app's ` +
      "allowed origins.",
    errors: originAdvice(origin),
  };
}

/** A failure the element found itself (no answer to read). */
export function launchFailure(status: number, code: string, message: string): LaunchErrorDetail {
  return { status, code, message, errors: [] };
}

/** Any thrown value as the element's error detail (a LaunchErrorDetail passes unchanged). */
export function toFailure(err: unknown): LaunchErrorDetail {
  if (err && typeof err === "object" && "message" in err && "status" in err) {
    const e = err as LaunchErrorDetail;
    return { status: e.status, code: e.code ?? null, message: e.message, errors: e.errors ?? [] };
  }
  return { status: 0, code: null, message: String(err), errors: [] };
}
