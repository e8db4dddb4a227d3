/**
 * What a portal page tells its host message bridge (server/portal/bridge.ts), in
 * `<meta name="portal-launcher-bridge" content="{json}">`. Shared by the pages and the script.
 */
import { messageTargets } from "../launch/host_messages.ts";

/** The bridge's settings. */
export interface BridgeSettings {
  /** The launch's exact allowed origins: the only targets of its messages. */
  origins: string[];
  sessionId: number | null;
  launchId: number | null;
  flavor: string;
  /** Set on the session screen only: it is the page that announces `ready`. */
  screen: boolean;
  /** The session change the agent just made (`?change=`), announced once. */
  change: string | null;
}

/** The meta element's name. */
export const BRIDGE_META = "portal-launcher-bridge";

/**
 * The settings of a page of `sessionId` under the login's view: messages go only to the launch's
 * exact origins (messageTargets); a password sign-in has none.
 */
export function bridgeSettings(
  view: { launchId: number | null; frameAncestors: string[]; target: string },
  sessionId: number,
  page: { screen?: boolean; change?: string | null } = {},
): BridgeSettings {
  return {
    origins: view.launchId ? messageTargets(view.frameAncestors) : [],
    sessionId,
    launchId: view.launchId,
    flavor: view.target,
    screen: page.screen ?? false,
    change: page.change ?? null,
  };
}
