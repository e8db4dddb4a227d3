/**
 * Organizations for the admin: the companies that own apps, agents and teams. The rules: slugs
 * are unique and never change, `default` cannot be deleted, and an organization is deleted only
 * once it owns no apps (its agents and teams go with it).
 */
import type { z } from "@hono/zod-openapi";
import type { Sql, Tx } from "../../db/mod.ts";
import {
  DEFAULT_ORGANIZATION,
  deleteOrganization,
  findOrganization,
  insertOrganization,
  listOrganizations,
  lockOrganization,
  type OrganizationRow,
  organizationSummaries,
  type OrganizationSummary,
  renameOrganization,
} from "../../db/queries/organizations.ts";
import type { Deps } from "../deps.ts";
import { AppError } from "../http/errors.ts";
import { inTransaction } from "../transaction.ts";
import type { CreateOrganizationSchema, OrganizationSchema } from "./schemas.ts";

export { DEFAULT_ORGANIZATION };
export type { OrganizationRow, OrganizationSummary };

/** An organization as the admin API shows it. */
export type OrganizationView = z.infer<typeof OrganizationSchema>;

/** What deleting an organization took with it. */
export interface OrganizationRemoval {
  agents: number;
  teams: number;
}

function notFound(slug: string): AppError {
  return new AppError(404, "organization_not_found", `No organization has the slug ${slug}`);
}

/** An organization as the admin API shows it. */
export function organizationView(row: OrganizationRow): OrganizationView {
  return { slug: row.slug, name: row.name, createdAt: row.createdAt.toISOString() };
}

/** Every organization, by slug. */
export async function allOrganizations(deps: Deps): Promise<OrganizationRow[]> {
  return await listOrganizations(deps.sql);
}

/** Every organization, by slug, with its counts of apps, agents and teams. */
export async function organizationsWithCounts(deps: Deps): Promise<OrganizationSummary[]> {
  return await organizationSummaries(deps.sql);
}

/**
 * The id of the organization `slug`; a 400 naming the field `organization` when no organization
 * has the slug. With a transaction's `tx` (to write into the organization) it cannot be deleted
 * until the transaction ends.
 */
export async function organizationIdOf(
  sql: Sql | Tx,
  slug: string,
  opts: { keep?: boolean } = {},
): Promise<number> {
  const row = await findOrganization(sql, slug, opts.keep ?? false);
  if (!row) {
    throw new AppError(400, "validation_failed", "Invalid request", [
      { path: "organization", code: "invalid_value", message: `no organization is ${slug}` },
    ]);
  }
  return row.id;
}

/** Creates an organization; 409 `organization_exists` naming slug when it is taken. */
export async function createOrganization(
  deps: Deps,
  input: z.infer<typeof CreateOrganizationSchema>,
): Promise<OrganizationRow> {
  const row = await insertOrganization(deps.sql, input);
  if (!row) {
    throw new AppError(409, "organization_exists", `Organization ${input.slug} already exists`, [
      { path: "slug", message: "already used by another organization" },
    ]);
  }
  return row;
}

/** Renames an organization (its slug never changes); 404 when there is none. */
export async function changeOrganizationName(
  deps: Deps,
  slug: string,
  name: string,
): Promise<OrganizationRow> {
  const row = await renameOrganization(deps.sql, slug, name);
  if (!row) throw notFound(slug);
  return row;
}

/**
 * Deletes an organization in one transaction: refused while it owns apps (409
 * `organization_has_apps`: delete or move them first) and for `default` (409
 * `organization_is_default`); its agents (with their logins and passwords) and teams are
 * deleted with it.
 */
export async function removeOrganization(
  deps: Deps,
  slug: string,
): Promise<OrganizationRemoval> {
  if (slug === DEFAULT_ORGANIZATION.slug) {
    throw new AppError(
      409,
      "organization_is_default",
      "The default organization cannot be deleted: it holds what is not given to another one",
    );
  }
  return await inTransaction(deps, async ({ tx }) => {
    const found = await lockOrganization(tx, slug);
    if (!found) throw notFound(slug);
    if (found.apps > 0) {
      throw new AppError(
        409,
        "organization_has_apps",
        `Organization ${slug} still owns ${found.apps} app${found.apps === 1 ? "" : "s"}: ` +
          "delete them or move them to another organization first",
      );
    }
    return await deleteOrganization(tx, found.id);
  });
}
