/** Admin API: users (an agent's portal password; disabling and enabling a user). */
import { createRoute, OpenAPIHono } from "@hono/zod-openapi";
import type { Deps } from "../../deps.ts";
import type { AppEnv } from "../../http/env.ts";
import { IdParam } from "../../api/schemas.ts";
import {
  emptyResponse,
  ErrorSchema,
  jsonBody,
  jsonResponse,
  validationHook,
} from "../../api/openapi_shared.ts";
import { AgentPasswordSchema, UserAccessSchema, UserAccessStateSchema } from "../schemas.ts";
import { setPassword, setUserAccess } from "../users.ts";
import { adminErrors, adminTag } from "./openapi_meta.ts";

/** The /agents/{id}/password and /users/{id} operations. */
export function usersApi(deps: Deps): OpenAPIHono<AppEnv> {
  const api = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });

  api.openapi(
    createRoute({
      method: "put",
      path: "/agents/{id}/password",
      ...adminTag("users"),
      operationId: "setAgentPassword",
      summary: "Set an agent's password, so the agent can sign in to the portal without a launch",
      request: { params: IdParam, ...jsonBody(AgentPasswordSchema) },
      responses: {
        204: emptyResponse("Set"),
        ...adminErrors({
          input: true,
          body: "required",
          notFound: "No agent has this id (`agent_not_found`)",
        }),
      },
    }),
    async (c) => {
      await setPassword(deps, c.req.valid("param").id, c.req.valid("json").password);
      return c.body(null, 204);
    },
  );

  api.openapi(
    createRoute({
      method: "patch",
      path: "/users/{id}",
      ...adminTag("users"),
      operationId: "updateUser",
      summary: "Disable or enable a user (agent or administrator)",
      description: "Disabling ends all of the user's logins and password-reset links at once; " +
        "until enabled again the user cannot sign in, reset a password or be logged in by a " +
        "launch (403 `agent_disabled`). Disabling the last enabled administrator is refused " +
        "(409 `last_admin`). Repeating a request changes nothing.",
      request: { params: IdParam, ...jsonBody(UserAccessSchema) },
      responses: {
        200: jsonResponse(UserAccessStateSchema, "The user's access after the change"),
        409: jsonResponse(
          ErrorSchema,
          "The last enabled administrator cannot be disabled (`last_admin`)",
        ),
        ...adminErrors({
          input: true,
          body: "required",
          notFound: "No user has this id (`user_not_found`)",
        }),
      },
    }),
    async (c) => {
      const { user, loginsEnded } = await setUserAccess(
        deps,
        c.req.valid("param").id,
        c.req.valid("json").disabled,
        null,
      );
      return c.json({
        id: user.id,
        role: user.role,
        organization: user.organization,
        email: user.email,
        disabled: user.disabledAt !== null,
        disabledAt: user.disabledAt?.toISOString() ?? null,
        loginsEnded,
      }, 200);
    },
  );

  return api;
}
