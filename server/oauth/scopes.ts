/** REST API scopes. */

/** Every scope the service knows. */
export const SCOPES = ["sessions:read", "sessions:write", "admin"] as const;
/** One scope. */
export type Scope = typeof SCOPES[number];
/** What an app's client may use unless an administrator grants more. */
export const DEFAULT_APP_SCOPES: Scope[] = ["sessions:read", "sessions:write"];

/** True when the text names a known scope. */
export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}
