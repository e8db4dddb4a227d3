/** Bearer-token middleware (RFC 6750): 401 without a valid token, 403 without the scope. */
import type { MiddlewareHandler } from "hono";
import { AppError } from "../http/errors.ts";
import type { AppEnv } from "../http/env.ts";
import type { AuthService } from "./auth_service.ts";
import type { Scope } from "./scopes.ts";

const REALM = 'Bearer realm="api"';

/** Requires `Authorization: Bearer <token>` granting `scope`; sets `c.var.token`. */
export function requireScope(auth: AuthService, scope: Scope): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const header = c.req.header("Authorization");
    const match = header?.match(/^Bearer[ ]+([A-Za-z0-9\-._~+/]+=*)\s*$/i);
    if (!header || !/^Bearer\b/i.test(header)) {
      throw new AppError(401, "unauthorized", "A bearer token is required", undefined, {
        "WWW-Authenticate": REALM,
      });
    }
    if (!match) {
      throw new AppError(400, "invalid_request", "Malformed Authorization header", undefined, {
        "WWW-Authenticate": `${REALM}, error="invalid_request", ` +
          `error_description="Expected: Authorization: Bearer <token>"`,
      });
    }
    const info = await auth.validate(match[1]);
    if (!info) {
      throw new AppError(
        401,
        "invalid_token",
        "The access token is invalid, expired or revoked",
        undefined,
        {
          "WWW-Authenticate": `${REALM}, error="invalid_token", ` +
            `error_description="The access token is invalid, expired or revoked"`,
        },
      );
    }
    if (!info.scopes.includes(scope)) {
      throw new AppError(
        403,
        "insufficient_scope",
        `This operation needs the scope ${scope}`,
        undefined,
        {
          "WWW-Authenticate": `${REALM}, error="insufficient_scope", scope="${scope}"`,
        },
      );
    }
    c.set("token", info);
    await next();
  };
}
