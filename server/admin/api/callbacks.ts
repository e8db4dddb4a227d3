/** Admin API: an app's callback signing-secret rotation and its test event. */
import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import type { Deps } from "../../deps.ts";
import type { AppEnv } from "../../http/env.ts";
import { ErrorSchema, jsonResponse, validationHook } from "../../api/openapi_shared.ts";
import {
  DEFAULT_SECRET_OVERLAP_SECONDS,
  MAX_SECRET_OVERLAP_SECONDS,
  rotateCallbackSecret,
  sendTestEvent,
} from "../callback_settings.ts";
import { AppNameSchema } from "../schemas.ts";
import { adminErrors, adminTag } from "./openapi_meta.ts";

const AppParam = z.object({ appName: AppNameSchema });
const tag = adminTag("apps");
const notFound = "No app has this App Name (`app_not_found`)";

const SecretRotationSchema = z.strictObject({
  previousSecretValidSeconds: z.number().int("expected whole seconds").min(0, "at least 0").max(
    MAX_SECRET_OVERLAP_SECONDS,
    `at most ${MAX_SECRET_OVERLAP_SECONDS}`,
  ).optional().openapi({
    description: `How long the old secret also signs (default ${DEFAULT_SECRET_OVERLAP_SECONDS}: ` +
      "a day; 0 drops it at once)",
  }),
}).openapi("CallbackSecretRotation");

const TestDeliverySchema = z.object({
  eventId: z.number().int(),
  webhookId: z.string(),
  delivered: z.boolean(),
  status: z.enum(["delivered", "pending", "failed"]),
  attempt: z.object({
    url: z.string(),
    statusCode: z.number().int().nullable(),
    durationMs: z.number().int(),
    error: z.string().nullable(),
    responseSnippet: z.string().nullable(),
  }),
}).openapi("TestDelivery");

/** POST /apps/{appName}/callback-secret and POST /apps/{appName}/callbacks/test. */
export function callbacksAdminApi(deps: Deps): OpenAPIHono<AppEnv> {
  const api = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
  api.openapi(
    createRoute({
      method: "post",
      path: "/apps/{appName}/callback-secret",
      ...tag,
      operationId: "rotateCallbackSecret",
      summary: "Rotate the callback signing secret; both sign until previousSecretExpiresAt",
      request: {
        params: AppParam,
        body: {
          required: false,
          content: { "application/json": { schema: SecretRotationSchema } },
        },
      },
      responses: {
        200: jsonResponse(
          z.object({
            callbackSecret: z.string(),
            previousSecretExpiresAt: z.string().nullable(),
          }).openapi("CallbackSecret"),
          "The new secret, shown only here",
        ),
        ...adminErrors({ input: true, body: "optional", notFound }),
      },
    }),
    async (c) => {
      const seconds = c.req.valid("json")?.previousSecretValidSeconds;
      const r = await rotateCallbackSecret(deps, c.req.valid("param").appName, seconds);
      return c.json({
        callbackSecret: r.callbackSecret,
        previousSecretExpiresAt: r.previousSecretExpiresAt?.toISOString() ?? null,
      }, 200);
    },
  );
  api.openapi(
    createRoute({
      method: "post",
      path: "/apps/{appName}/callbacks/test",
      ...tag,
      operationId: "sendTestEvent",
      summary: "Send a ping event now and answer the attempt's result",
      request: { params: AppParam },
      responses: {
        200: jsonResponse(TestDeliverySchema, "The attempt (delivered or not)"),
        409: jsonResponse(ErrorSchema, "The app has no callback URL (`callbacks_not_configured`)"),
        ...adminErrors({ input: true, notFound }),
      },
    }),
    async (c) => c.json(await sendTestEvent(deps, c.req.valid("param").appName), 200),
  );
  return api;
}
