/**
 * The organization pickers of the admin screens: the `?organization=<slug>` filter of the apps,
 * users, teams and sessions lists, and the labelled select of the forms that put something in one.
 */
import type { Context } from "hono";
import type { JSX } from "hono/jsx/jsx-runtime";
import type { Deps } from "../../deps.ts";
import { AppError } from "../../http/errors.ts";
import { allOrganizations, type OrganizationRow } from "../organizations.ts";

/** Every organization and the one the list is filtered by (null: every organization). */
export interface OrganizationChoice {
  organizations: OrganizationRow[];
  chosen: OrganizationRow | null;
}

/** The `?organization=` of a list screen; an unknown slug is a 404 page. */
export async function organizationChoice(
  deps: Deps,
  c: Context,
): Promise<OrganizationChoice> {
  const organizations = await allOrganizations(deps);
  const slug = c.req.query("organization") ?? "";
  if (!slug) return { organizations, chosen: null };
  const chosen = organizations.find((o) => o.slug === slug);
  if (!chosen) {
    throw new AppError(404, "organization_not_found", `No organization has the slug ${slug}`);
  }
  return { organizations, chosen };
}

/** An organization as the pickers name it. */
export function organizationLabel(o: Pick<OrganizationRow, "slug" | "name">): string {
  return `${o.name} (${o.slug})`;
}

/** The (value, label) options of a form's organization select. */
export function organizationOptions(organizations: OrganizationRow[]): [string, string][] {
  return organizations.map((o) => [o.slug, organizationLabel(o)]);
}

/** A labelled organization select for a filter form: "any" then every organization. */
export function OrganizationSelect(
  props: { id: string; organizations: OrganizationRow[]; chosen: string },
): JSX.Element {
  return (
    <>
      <label for={props.id}>Organization</label>
      <select id={props.id} name="organization">
        <option value="">any</option>
        {props.organizations.map((o) => (
          <option key={o.slug} value={o.slug} selected={o.slug === props.chosen}>
            {organizationLabel(o)}
          </option>
        ))}
      </select>
    </>
  );
}

/** The filter form above a list: its organization select and a Filter button. */
export function OrganizationFilter(
  props: { action: string; choice: OrganizationChoice },
): JSX.Element {
  return (
    <form method="get" action={props.action} role="search" class="row">
      <OrganizationSelect
        id="organization-filter"
        organizations={props.choice.organizations}
        chosen={props.choice.chosen?.slug ?? ""}
      />
      <button type="submit" class="secondary">Filter</button>
    </form>
  );
}
