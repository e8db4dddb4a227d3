/** Field settings: Session Data (external session id) and Consumer Data (external customer id). */
import { Hono } from "hono";
import type { Deps } from "../../deps.ts";
import { readFieldSettings, writeFieldSettings } from "../settings.ts";
import { adminContext, type ScreenEnv, str } from "./form_helpers.ts";
import { adminPage, Banner, Check, Csrf } from "./layout.tsx";

/** The field settings screen. */
export function fieldSettingsScreens(deps: Deps): Hono<ScreenEnv> {
  const screens = new Hono<ScreenEnv>();

  screens.get("/field-settings", async (c) => {
    const s = await readFieldSettings(deps);
    const ctx = adminContext(c, "field-settings");
    return c.html(adminPage(
      ctx,
      "Field settings",
      <form method="post" action="/admin/field-settings">
        <Csrf ctx={ctx} />
        {c.req.query("saved") ? <Banner notice="Saved." /> : null}
        <h2>Session Data</h2>
        <Check
          name="externalSessionId"
          label="External session id (launches store referenceNumber here)"
          checked={s.session.externalSessionId}
        />
        <h2>Consumer Data</h2>
        <Check
          name="externalCustomerId"
          label="External customer id (launches store contactId here)"
          checked={s.consumer.externalCustomerId}
        />
        <p class="hint">
          Launches are refused (409) while either is disabled, because they need both fields.
        </p>
        <button type="submit">Save</button>
      </form>,
    ));
  });

  screens.post("/field-settings", async (c) => {
    const form = c.get("form");
    await writeFieldSettings(deps, {
      session: { externalSessionId: str(form, "externalSessionId") === "on" },
      consumer: { externalCustomerId: str(form, "externalCustomerId") === "on" },
    });
    return c.redirect("/admin/field-settings?saved=1", 303);
  });

  return screens;
}
