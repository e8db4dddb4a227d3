/** Custom session fields: the names launches may set in `customFields`. */
import { type Context, Hono } from "hono";
import type { Deps } from "../../deps.ts";
import { validationError } from "../../http/errors.ts";
import { CreateCustomFieldSchema } from "../schemas.ts";
import { addCustomField, customFields, removeCustomField } from "../settings.ts";
import { adminContext, isRefusal, type ScreenEnv, str } from "./form_helpers.ts";
import { adminPage, ColumnHeads, Csrf, errorMap, type Errors, Field } from "./layout.tsx";

/** The custom fields screen: the list, add and delete. */
export function customFieldsScreens(deps: Deps): Hono<ScreenEnv> {
  const screens = new Hono<ScreenEnv>();

  async function customFieldsPage(
    c: Context<ScreenEnv>,
    f: { name: string; label: string },
    errors: Errors,
    status: 200 | 400 | 409 = 200,
  ) {
    const ctx = adminContext(c, "custom-fields");
    const list = await customFields(deps);
    return c.html(
      adminPage(
        ctx,
        "Custom fields",
        <>
          <p>
            Launches may set these in <code>customFields</code>; any other name is refused.
          </p>
          <div class="table-wrap" tabindex={0}>
            <table data-testid="custom-fields">
              <ColumnHeads columns={["Name", "Label", ""]} />
              <tbody>
                {list.map((cf) => (
                  <tr key={cf.name}>
                    <td>
                      <code>{cf.name}</code>
                    </td>
                    <td>{cf.label}</td>
                    <td>
                      <form method="post" action={`/admin/custom-fields/${cf.name}/delete`}>
                        <Csrf ctx={ctx} />
                        <button type="submit" class="danger" aria-label={`Delete ${cf.name}`}>
                          Delete
                        </button>
                      </form>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          {list.length === 0
            ? (
              <p class="empty">
                No custom fields yet. Fields you add below appear here, and launches may then set
                them.
              </p>
            )
            : null}
          <h2>Add a custom field</h2>
          <form method="post" action="/admin/custom-fields">
            <Csrf ctx={ctx} />
            <Field
              name="name"
              label="Name"
              value={f.name}
              errors={errors}
              hint="A letter, then up to 63 letters, digits or '_'."
            />
            <Field name="label" label="Label" value={f.label} errors={errors} />
            <button type="submit">Add</button>
          </form>
        </>,
      ),
      status,
    );
  }

  screens.get("/custom-fields", (c) => customFieldsPage(c, { name: "", label: "" }, {}));

  screens.post("/custom-fields", async (c) => {
    const form = c.get("form");
    const f = { name: str(form, "name").trim(), label: str(form, "label").trim() };
    const parsed = CreateCustomFieldSchema.safeParse({
      name: f.name,
      ...(f.label ? { label: f.label } : {}),
    });
    try {
      if (!parsed.success) throw validationError(parsed.error.issues);
      await addCustomField(deps, parsed.data);
      return c.redirect("/admin/custom-fields", 303);
    } catch (err) {
      if (isRefusal(err, 400, 409)) {
        return customFieldsPage(c, f, errorMap(err.errors), err.status);
      }
      throw err;
    }
  });

  screens.post("/custom-fields/:name/delete", async (c) => {
    await removeCustomField(deps, c.req.param("name"));
    return c.redirect("/admin/custom-fields", 303);
  });

  return screens;
}
