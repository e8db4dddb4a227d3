/**
 * Apps by name for the launch endpoint, remembered for APP_CACHE_MS so a launch costs no app
 * lookup. Changes made in this process (create, update, rotate, delete) clear the cache at once;
 * other processes see them within APP_CACHE_MS.
 */
import { findLaunchApp, type LaunchApp } from "../../db/queries/launch.ts";
import type { Deps } from "../deps.ts";

/** How long an app (or its absence) is remembered. */
export const APP_CACHE_MS = 5_000;
const MAX_ENTRIES = 1_000;

const caches = new WeakMap<Deps, Map<string, { row: LaunchApp | null; until: number }>>();

/** The app named `appName` (case-insensitive), or null. */
export async function cachedApp(deps: Deps, appName: string): Promise<LaunchApp | null> {
  let cache = caches.get(deps);
  if (!cache) caches.set(deps, cache = new Map());
  const key = appName.toLowerCase();
  const hit = cache.get(key);
  const now = Date.now();
  if (hit && hit.until > now) return hit.row;
  const row = await findLaunchApp(deps.sql, appName);
  cache.set(key, { row, until: now + APP_CACHE_MS });
  if (cache.size > MAX_ENTRIES) cache.delete(cache.keys().next().value!);
  return row;
}

/** Forgets every cached app of this process (after any change to apps). */
export function forgetApps(deps: Deps): void {
  caches.get(deps)?.clear();
}
