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
  };
}
