/** Field settings (Session Data, Consumer Data) and custom-field definitions. */
import type { z } from "@hono/zod-openapi";
import {
  type CustomFieldRow,
  deleteCustomField,
  getFieldSettings,
  insertCustomField,
  listCustomFields,
  putFieldSettings,
} from "../../db/queries/settings.ts";
import type { Deps } from "../deps.ts";
import { AppError } from "../http/errors.ts";
import type { CreateCustomFieldSchema, FieldSettingsSchema } from "./schemas.ts";

/** Field settings as the admin API shows them. */
export type FieldSettings = z.infer<typeof FieldSettingsSchema>;

/** Reads the field settings. */
export async function readFieldSettings(deps: Deps): Promise<FieldSettings> {
  const row = await getFieldSettings(deps.sql);
  return {
    session: { externalSessionId: row.externalSessionId },
    consumer: { externalCustomerId: row.externalCustomerId },
  };
}

/** Replaces the field settings. */
export async function writeFieldSettings(deps: Deps, value: FieldSettings): Promise<FieldSettings> {
  await putFieldSettings(deps.sql, {
    externalSessionId: value.session.externalSessionId,
    externalCustomerId: value.consumer.externalCustomerId,
  });
  return value;
}

/** A custom field as the admin API shows it. */
export interface CustomField {
  name: string;
  label: string;
  createdAt: string;
}

function view(row: CustomFieldRow): CustomField {
  return { name: row.name, label: row.label, createdAt: row.createdAt.toISOString() };
}

/** Lists custom fields. */
export async function customFields(deps: Deps): Promise<CustomField[]> {
  return (await listCustomFields(deps.sql)).map(view);
}

/** Adds a custom field; the label defaults to the name. */
export async function addCustomField(
  deps: Deps,
  input: z.infer<typeof CreateCustomFieldSchema>,
): Promise<CustomField> {
  const row = await insertCustomField(deps.sql, {
    name: input.name,
    label: input.label ?? input.name,
  });
  if (!row) {
    throw new AppError(409, "custom_field_exists", `Custom field ${input.name} already exists`, [
      { path: "name", message: "already exists" },
    ]);
  }
  return view(row);
}

/** Removes a custom field definition (values already stored on sessions stay). */
export async function removeCustomField(deps: Deps, name: string): Promise<void> {
  if (!(await deleteCustomField(deps.sql, name))) {
    throw new AppError(404, "custom_field_not_found", `Unknown custom field: ${name}`);
  }
}
