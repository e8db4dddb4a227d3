/** Admin API: field settings (Session Data, Consumer Data) and custom session fields. */
import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import type { Deps } from "../../deps.ts";
import type { AppEnv } from "../../http/env.ts";
import {
  emptyResponse,
  ErrorSchema,
  jsonBody,
  jsonResponse,
  validationHook,
} from "../../api/openapi_shared.ts";
import { CreateCustomFieldSchema, CustomFieldNameSchema, FieldSettingsSchema } from "../schemas.ts";
import {
  addCustomField,
  customFields,
  readFieldSettings,
  removeCustomField,
  writeFieldSettings,
} from "../settings.ts";
import { adminErrors, adminTag, setLocation } from "./openapi_meta.ts";

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
      operationId: "getFieldSettings",
      summary: "Read the field settings (Session Data and Consumer Data)",
      responses: {
        200: jsonResponse(FieldSettingsSchema, "The field settings"),
        ...adminErrors(),
      },
    }),
    async (c) => c.json(await readFieldSettings(deps), 200),
  );

  api.openapi(
    createRoute({
      method: "put",
      path: "/field-settings",
      ...tag,
      operationId: "replaceFieldSettings",
      summary: "Replace the field settings",
      request: jsonBody(FieldSettingsSchema),
      responses: {
        200: jsonResponse(FieldSettingsSchema, "The field settings"),
        ...adminErrors({ body: "required" }),
      },
    }),
    async (c) => c.json(await writeFieldSettings(deps, c.req.valid("json")), 200),
  );

  api.openapi(
    createRoute({
      method: "get",
      path: "/custom-fields",
      ...tag,
      operationId: "listCustomFields",
      summary: "List custom session fields",
      responses: {
        200: jsonResponse(z.object({ items: z.array(CustomField) }), "The custom fields"),
        ...adminErrors(),
      },
    }),
    async (c) => c.json({ items: await customFields(deps) }, 200),
  );

  api.openapi(
    createRoute({
      method: "post",
      path: "/custom-fields",
      ...tag,
      operationId: "createCustomField",
      summary: "Add a custom session field",
      request: jsonBody(CreateCustomFieldSchema),
      responses: {
        201: jsonResponse(CustomField, "Created", ["Location"]),
        409: jsonResponse(ErrorSchema, "A custom field has this name (`custom_field_exists`)"),
        ...adminErrors({ body: "required" }),
      },
    }),
    async (c) => {
      const field = await addCustomField(deps, c.req.valid("json"));
      setLocation(deps, c, "custom-fields", field.name);
      return c.json(field, 201);
    },
  );

  api.openapi(
    createRoute({
      method: "delete",
      path: "/custom-fields/{name}",
      ...tag,
      operationId: "deleteCustomField",
      summary: "Remove a custom session field",
      request: { params: NameParam },
      responses: {
        204: emptyResponse("Deleted"),
        ...adminErrors({
          input: true,
          notFound: "No custom field has this name (`custom_field_not_found`)",
        }),
      },
    }),
    async (c) => {
      await removeCustomField(deps, c.req.valid("param").name);
      return c.body(null, 204);
    },
  );

  return api;
}
