/**
 * The admin JSON API under /api/v1/admin (Bearer token with scope `admin`), one file per
 * resource: organizations, apps, settings (field settings and custom fields), guided paths, users.
 */
import { OpenAPIHono } from "@hono/zod-openapi";
import type { Deps } from "../../deps.ts";
import type { AppEnv } from "../../http/env.ts";
import { validationHook } from "../../api/openapi_shared.ts";
import { requireScope } from "../../oauth/bearer.ts";
import { appsApi } from "./apps.ts";
import { keyRotationApi } from "./key_rotation.ts";
import { organizationsApi } from "./organizations.ts";
import { callbacksAdminApi } from "./callbacks.ts";
import { guidedPathsApi } from "./guided_paths.ts";
import { settingsApi } from "./settings.ts";
import { usersApi } from "./users.ts";

/** Builds the admin API sub-app: scope `admin`, no-store, then each resource. */
export function adminApiRoutes(deps: Deps): OpenAPIHono<AppEnv> {
  const api = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
  api.use("*", requireScope(deps.auth, "admin"));
  api.use("*", async (c, next) => {
    await next();
    c.header("Cache-Control", "no-store");
  });
  api.route("/", organizationsApi(deps));
  api.route("/", appsApi(deps));
  api.route("/", keyRotationApi(deps));
  api.route("/", callbacksAdminApi(deps));
  api.route("/", settingsApi(deps));
  api.route("/", guidedPathsApi(deps));
  api.route("/", usersApi(deps));
  return api;
}
