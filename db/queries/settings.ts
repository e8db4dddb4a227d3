/** SQL for field settings and custom-field definitions. */
import type { Tx } from "../mod.ts";

/** Which optional identifier fields are enabled (Session Data, Consumer Data). */
export interface FieldSettingsRow {
  externalSessionId: boolean;
  externalCustomerId: boolean;
}

/** Reads the field settings. */
export async function getFieldSettings(tx: Tx): Promise<FieldSettingsRow> {
  const [row] = await tx<FieldSettingsRow[]>`
    select external_session_id, external_customer_id from field_settings where id
  `;
  return row;
}

/** Writes the field settings. */
export async function putFieldSettings(tx: Tx, values: FieldSettingsRow): Promise<void> {
  await tx`
    update field_settings set
      external_session_id = ${values.externalSessionId},
      external_customer_id = ${values.externalCustomerId},
      updated_at = now()
    where id
  `;
}

/** A configured custom session field. */
export interface CustomFieldRow {
  name: string;
  label: string;
  createdAt: Date;
}

/** Lists custom fields by name. */
export async function listCustomFields(tx: Tx): Promise<CustomFieldRow[]> {
  return await tx<CustomFieldRow[]>`select * from custom_field_definitions order by name`;
}

/** Creates a custom field; null when the name exists. */
export async function insertCustomField(
  tx: Tx,
  values: { name: string; label: string },
): Promise<CustomFieldRow | null> {
  const [row] = await tx<CustomFieldRow[]>`
    insert into custom_field_definitions (name, label) values (${values.name}, ${values.label})
    on conflict do nothing
    returning *
  `;
  return row ?? null;
}

/** Deletes a custom field; false when it did not exist. */
export async function deleteCustomField(tx: Tx, name: string): Promise<boolean> {
  const rows = await tx`delete from custom_field_definitions where name = ${name} returning name`;
  return rows.length > 0;
}
