/**
 * Which app's data a REST caller reaches. A client without the `admin` scope reaches only its
 * own app's sessions, customers and the agents who launched through its app (another
 * app's id is a 404, like a missing one); an `admin` client reaches every app's (whatever scopes
 * its token was asked with), or one app's with `?app=<appName>` on a list.
 */
import type { Context } from "hono";
import { findAppByName } from "../../db/queries/apps.ts";
import type { AppScope } from "../../db/queries/people.ts";
import type { Deps } from "../deps.ts";
import type { AppEnv } from "../http/env.ts";
import { AppError } from "../http/errors.ts";

export type { AppScope } from "../../db/queries/people.ts";

/** The 404 of an admin client's `?app=` naming no app, as the document describes it. */
export const APP_NOT_FOUND = "An admin client's `app` names no app (`app_not_found`)";

/** The caller's scope: its app, or every app (admin), or the app named by `?app=` (admin). */
export async function appScope(deps: Deps, c: Context<AppEnv>): Promise<AppScope> {
  const token = c.get("token");
  if (!token.clientScopes.includes("admin")) return { appId: token.appId };
  const name = c.req.query("app");
  if (!name) return { all: true };
  const app = await findAppByName(deps.sql, name);
  if (!app) throw new AppError(404, "app_not_found", `No app has the App Name ${name}`);
  return { appId: app.id };
}

/** True when a row of `appId` is within the scope. */
export function inAppScope(scope: AppScope, appId: number | null): boolean {
  return "all" in scope || (scope.appId !== null && scope.appId === appId);
}

/** The list filter of a scope: undefined for every app, else the app (null: none). */
export function scopeFilter(scope: AppScope): number | null | undefined {
  return "all" in scope ? undefined : scope.appId;
}
