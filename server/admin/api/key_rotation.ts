/** Admin API: rotating an app's signing key (API key or consumer secret) with an overlap. */
import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import type { Deps } from "../../deps.ts";
import type { AppEnv } from "../../http/env.ts";
import { ErrorSchema, jsonResponse, validationHook } from "../../api/openapi_shared.ts";
import {
  DEFAULT_OVERLAP_SECONDS,
  endKeyOverlap,
  MAX_OVERLAP_SECONDS,
  rotateKey,
  type SigningField,
} from "../key_rotation.ts";
import { AppNameSchema } from "../schemas.ts";
import { emptyResponse } from "../../api/openapi_shared.ts";
import { adminErrors, adminTag } from "./openapi_meta.ts";

const AppParam = z.object({ appName: AppNameSchema });
const tag = adminTag("apps");
const notFound = "No app has this App Name (`app_not_found`)";

const RotationSchema = z.strictObject({
  previousKeyValidSeconds: z.number().int("expected whole seconds").min(0, "at least 0").max(
    MAX_OVERLAP_SECONDS,
    `at most ${MAX_OVERLAP_SECONDS}`,
  ).optional().openapi({
    description: `How long the old key keeps verifying (default ${DEFAULT_OVERLAP_SECONDS}: a ` +
      "week; 0 revokes it at once)",
  }),
}).openapi("KeyRotation");

/** The rotate and end-overlap operations of the API key and the consumer secret. */
export function keyRotationApi(deps: Deps): OpenAPIHono<AppEnv> {
  const api = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
  const routes: [string, SigningField, "apiKey" | "consumerSecret", string, string][] = [
    ["api-key", "api_key", "apiKey", "ApiKey", "the API key (signed_request apps)"],
    [
      "consumer-secret",
      "consumer_secret",
      "consumerSecret",
      "ConsumerSecret",
      "the consumer secret (OAuth apps)",
    ],
  ];
  for (const [segment, field, name, title, what] of routes) {
    api.openapi(
      createRoute({
        method: "post",
        path: `/apps/{appName}/${segment}`,
        ...tag,
        operationId: `rotate${title}`,
        summary: `Rotate ${what}; the old one verifies until previousKeyExpiresAt`,
        request: {
          params: AppParam,
          body: { required: false, content: { "application/json": { schema: RotationSchema } } },
        },
        responses: {
          200: jsonResponse(
            z.object({
              [name]: z.string(),
              previousKeyExpiresAt: z.string().nullable(),
            }),
            "The new secret, shown only here",
          ),
          409: jsonResponse(
            ErrorSchema,
            "The app signs with its other kind of secret (`wrong_auth_type`)",
          ),
          ...adminErrors({ input: true, body: "optional", notFound }),
        },
      }),
      async (c) => {
        const seconds = c.req.valid("json")?.previousKeyValidSeconds;
        const rotated = await rotateKey(deps, c.req.valid("param").appName, field, seconds);
        return c.json({
          [name]: rotated.secret,
          previousKeyExpiresAt: rotated.previousKeyExpiresAt?.toISOString() ?? null,
        }, 200);
      },
    );
    api.openapi(
      createRoute({
        method: "delete",
        path: `/apps/{appName}/${segment}/previous`,
        ...tag,
        operationId: `end${title}Overlap`,
        summary: `End the overlap: the previous ${what.slice(4)} stops verifying`,
        request: { params: AppParam },
        responses: { 204: emptyResponse("Ended"), ...adminErrors({ input: true, notFound }) },
      }),
      async (c) => {
        await endKeyOverlap(deps, c.req.valid("param").appName);
        return c.body(null, 204);
      },
    );
  }
  return api;
}
