/**
 * Apps by name for the launch endpoint, remembered for APP_CACHE_MS so a launch costs no app
 * lookup. One cache per service (Deps.apps). Changes made by this service (create, update,
 * rotate, delete) empty it once they commit (server/transaction.ts); other processes see them
 * within APP_CACHE_MS.
 */
import { findLaunchApp, type LaunchApp } from "../../db/queries/launch.ts";
import type { Sql } from "../../db/mod.ts";
import { setBounded } from "../bounded_map.ts";

/** How long an app (or its absence) is remembered. */
export const APP_CACHE_MS = 5_000;
const MAX_ENTRIES = 1_000;

/** The launch endpoint's apps by lower-cased name, with their absence remembered too. */
export class AppCache {
  #entries = new Map<string, { row: LaunchApp | null; until: number }>();

  constructor(private readonly sql: Sql) {}

  /** The app named `appName` (case-insensitive), or null. */
  async get(appName: string): Promise<LaunchApp | null> {
    const key = appName.toLowerCase();
    const hit = this.#entries.get(key);
    const now = Date.now();
    if (hit && hit.until > now) return hit.row;
    const row = await findLaunchApp(this.sql, appName);
    setBounded(this.#entries, key, { row, until: now + APP_CACHE_MS }, MAX_ENTRIES);
    return row;
  }

  /** Forgets every cached app (after any change to apps). */
  clear(): void {
    this.#entries.clear();
  }
}

/** Empties the service's app cache (tests; writers say `after.appsChanged()` instead). */
export function forgetApps(deps: { apps: AppCache }): void {
  deps.apps.clear();
}
