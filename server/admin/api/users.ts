/** Admin API: users (an agent's portal password). */
import { createRoute, OpenAPIHono } from "@hono/zod-openapi";
import type { Deps } from "../../deps.ts";
import type { AppEnv } from "../../http/env.ts";
import { IdParam } from "../../api/schemas.ts";
import { jsonBody, validationHook } from "../../api/openapi_shared.ts";
import { AgentPasswordSchema } from "../schemas.ts";
import { setPassword } from "../users.ts";
import { adminErrors, adminTag } from "./openapi_meta.ts";

/** The /agents/{id}/password operation. */
export function usersApi(deps: Deps): OpenAPIHono<AppEnv> {
  const api = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });

  api.openapi(
    createRoute({
      method: "put",
      path: "/agents/{id}/password",
      ...adminTag("users"),
      summary: "Set an agent's password, so the agent can sign in to the portal without a launch",
      request: { params: IdParam, ...jsonBody(AgentPasswordSchema) },
      responses: { 204: { description: "Set" }, ...adminErrors },
    }),
    async (c) => {
      await setPassword(deps, c.req.valid("param").id, c.req.valid("json").password);
      return c.body(null, 204);
    },
  );

  return api;
}
