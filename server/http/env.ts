/** Hono context typing shared by every route. */
import type { TokenInfo } from "../oauth/auth_service.ts";
import type { Login } from "../auth/logins.ts";

/** Variables set by middleware. */
export interface AppEnv {
  Variables: {
    requestId: string;
    token: TokenInfo;
    /** The CSP nonce of this request's inline code, when a page made one (page_policy.ts). */
    cspNonce?: string;
    /** The signed-in portal agent, set by the portal's guard (portal/guard.ts). */
    agent?: Login;
    /** The launch this request made, re-entered or recorded as failed (the request log's). */
    launchId?: number;
    /** A JSON body's text as the input rules read it (http/nul.ts): where a syntax error is. */
    jsonBody?: string;
    /** The stored name of the app a launch found (the launch metric's label). */
    launchAppName?: string;
    /** A launch that re-entered its session (a replay from the browser that made it). */
    launchReentered?: boolean;
    /**
     * The error code of a refusal a route answered itself (the launch's HTML error page, an
     * unknown route) rather than through the error handler (which leaves it in `c.error`).
     */
    errorCode?: string;
  };
}
