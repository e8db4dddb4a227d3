/** The view options a portal page applies: the launch's, or the defaults without a launch. */
import { findLaunchView } from "../../db/queries/portal.ts";
import type { LaunchView } from "../launch/payload.ts";
import { contentLanguage } from "../launch/contract.ts";
import type { Context } from "hono";
import type { Deps } from "../deps.ts";
import type { PortalAgent } from "./auth.ts";

/** The view options in force, with the launch they came from. */
export interface ScreenView extends LaunchView {
  launchId: number | null;
  frameAncestors: string[];
  /** The launch's warnings the agent should know about, on the session it opened only. */
  notices?: { path: string; code: string; message: string }[];
}

/**
 * The warnings an agent should know about, among a launch's: path filters it ignored (its guided
 * paths may not be the ones the host meant) and values it repaired. Identity resolutions and
 * other ignored fields are the host's business: the launch log has them.
 */
export function agentNotices(
  warnings: { path: string; code: string; message: string }[],
): { path: string; code: string; message: string }[] {
  return warnings.filter((w) =>
    w.code.endsWith("_repaired") || (w.code === "ignored_field" && /\.paths(\.|$)/.test(w.path))
  );
}

/** Parses `?launch=` (or the form field): a positive integer, else null. */
export function launchParam(value: unknown): number | null {
  if (typeof value !== "string" || !/^[1-9][0-9]{0,14}$/.test(value)) return null;
  return Number(value);
}

/**
 * The view of the agent's login on the page of session `sessionId` (null: a page of no session):
 * a login a launch created obeys that launch's view (flavor, show* flags, paths plan) on every
 * page and every form, whatever the request says. Framing and host messages follow the session:
 * only the pages of the session that very launch opened may be framed by its app's origins and
 * message them; any other page of the login answers `frame-ancestors 'self'` and messages no one.
 * A password sign-in gets the defaults: standard flavor, all published paths, every control
 * shown. Every page speaks the login's language (loginLanguage), whatever the launch's view says.
 */
export async function resolveView(
  deps: Deps,
  agent: PortalAgent,
  sessionId: number | null,
): Promise<ScreenView> {
  const launchId = agent.launchId;
  const found = launchId
    ? await findLaunchView(deps.sql, { launchId, agentId: agent.userId })
    : null;
  if (found) {
    const view = found.view as LaunchView;
    return {
      ...view,
      // One language per login: the login's (set by its launch, changed by the language menu).
      ...loginLanguage(agent),
      launchId,
      frameAncestors: found.sessionId === sessionId ? found.frameAncestors : [],
      notices: found.sessionId === sessionId ? agentNotices(found.warnings ?? []) : [],
    };
  }
  return defaultView(agent);
}

/** The locale and language of the agent's login: every page of the login speaks it. */
export function loginLanguage(agent: PortalAgent): { locale: string; language: string } {
  return { locale: agent.locale ?? "en", language: contentLanguage(agent.locale) };
}

/** The view without a launch: standard flavor, all paths, every control, the agent's language. */
export function defaultView(agent: PortalAgent): ScreenView {
  return {
    target: "standard",
    paths: null,
    showSessionStatusChange: true,
    showAssignToMeButton: true,
    showSessionTransferButton: true,
    ...loginLanguage(agent),
    launchId: null,
    frameAncestors: [],
  };
}

/** A portal URL that keeps the launch (and its view options) in the query string. */
export function portalUrl(
  prefix: string,
  path: string,
  launchId: number | null,
  extra: Record<string, string> = {},
): string {
  const q = new URLSearchParams({ ...(launchId ? { launch: String(launchId) } : {}), ...extra });
  const qs = q.toString();
  return `${prefix}${path}${qs ? `?${qs}` : ""}`;
}

/**
 * The page's own path and query, for the language menu to come back to: without `change` and
 * `done`, which tell of an action just made (the host page must not hear of it twice).
 */
export function pageHere(c: Context): string {
  const url = new URL(c.req.url);
  url.searchParams.delete("change");
  url.searchParams.delete("done");
  return url.pathname + url.search;
}
