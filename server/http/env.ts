/** Hono context typing shared by every route. */
import type { TokenInfo } from "../oauth/auth_service.ts";

/** Variables set by middleware. */
export interface AppEnv {
  Variables: {
    requestId: string;
    token: TokenInfo;
  };
}
