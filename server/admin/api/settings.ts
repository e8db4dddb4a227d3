/** Admin API: field settings (Session Data, Consumer Data) and custom session fields. */
import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import type { Deps } from "../../deps.ts";
import type { AppEnv } from "../../http/env.ts";
import { ErrorSchema, jsonBody, jsonResponse, validationHook } from "../../api/openapi_shared.ts";
import { CreateCustomFieldSchema, CustomFieldNameSchema, FieldSettingsSchema } from "../schemas.ts";
import {
  addCustomField,
  customFields,
  readFieldSettings,
  removeCustomField,
  writeFieldSettings,
} from "../settings.ts";
import { adminErrors, adminTag } from "./openapi_meta.ts";

const NameParam = z.object({ name: CustomFieldNameSchema });
const tag = adminTag("settings");

const CustomField = z.object({ name: z.string(), label: z.string(), createdAt: z.string() })
  .openapi("CustomField");

/** The /field-settings and /custom-fields operations. */
export function settingsApi(deps: Deps): OpenAPIHono<AppEnv> {
  const api = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });

  api.openapi(
    createRoute({
      method: "get",
      path: "/field-settings",
      ...tag,
      summary: "Read the field settings (Session Data and Consumer Data)",
      responses: { 200: jsonResponse(FieldSettingsSchema, "The field settings") },
    }),
    async (c) => c.json(await readFieldSettings(deps), 200),
  );

  api.openapi(
    createRoute({
      method: "put",
      path: "/field-settings",
      ...tag,
      summary: "Replace the field settings",
      request: jsonBody(FieldSettingsSchema),
      responses: { 200: jsonResponse(FieldSettingsSchema, "The field settings"), ...adminErrors },
    }),
    async (c) => c.json(await writeFieldSettings(deps, c.req.valid("json")), 200),
  );

  api.openapi(
    createRoute({
      method: "get",
      path: "/custom-fields",
      ...tag,
      summary: "List custom session fields",
      responses: {
        200: jsonResponse(z.object({ items: z.array(CustomField) }), "The custom fields"),
      },
    }),
    async (c) => c.json({ items: await customFields(deps) }, 200),
  );

  api.openapi(
    createRoute({
      method: "post",
      path: "/custom-fields",
      ...tag,
      summary: "Add a custom session field",
      request: jsonBody(CreateCustomFieldSchema),
      responses: {
        201: jsonResponse(CustomField, "Created"),
        409: jsonResponse(ErrorSchema, "Exists"),
        ...adminErrors,
      },
    }),
    async (c) => c.json(await addCustomField(deps, c.req.valid("json")), 201),
  );

  api.openapi(
    createRoute({
      method: "delete",
      path: "/custom-fields/{name}",
      ...tag,
      summary: "Remove a custom session field",
      request: { params: NameParam },
      responses: { 204: { description: "Deleted" }, ...adminErrors },
    }),
    async (c) => {
      await removeCustomField(deps, c.req.valid("param").name);
      return c.body(null, 204);
    },
  );

  return api;
}
