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
    /** The portal agent of this request's login cookie, looked up once (portal/auth.ts). */
    portalAgent?: Promise<Login | null>;
  };
}
