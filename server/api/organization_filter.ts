/**
 * `?organization=<slug>` on the REST lists: an admin client narrows a list to one organization
 * (sessions, customers, launches and deliveries through their app's organization; agents by
 * their own). An app's client already sees its own app only, so the parameter is refused for it
 * (400 naming `organization`) rather than silently ignored.
 */
import type { Context } from "hono";
import type { Deps } from "../deps.ts";
import type { AppEnv } from "../http/env.ts";
import { AppError } from "../http/errors.ts";
import { organizationIdOf } from "../admin/organizations.ts";

/** The organization id a list is narrowed to; undefined without `?organization=`. */
export async function organizationFilter(
  deps: Deps,
  c: Context<AppEnv>,
  slug: string | undefined,
): Promise<number | undefined> {
  if (slug === undefined) return undefined;
  if (!c.get("token").clientScopes.includes("admin")) {
    throw new AppError(400, "validation_failed", "Invalid request", [{
      path: "organization",
      code: "invalid",
      message: "only admin clients filter by organization; an app's client sees its own app only",
    }]);
  }
  return await organizationIdOf(deps.sql, slug);
}
