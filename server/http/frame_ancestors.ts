/**
 * Which host pages may frame the portal or call the dry run: an app's allowed origins, as the
 * `frame-ancestors` CSP directive and as an origin check for CORS.
 */

/** `frame-ancestors 'self' <origins>` for the app's allowed embedders. */
export function frameAncestorsCsp(origins: string[]): string {
  return `frame-ancestors ${["'self'", ...origins].join(" ")}`;
}

/** True when `origin` is one of `allowed` (a `*.` entry matches any subdomain). */
export function originAllowed(origin: string, allowed: string[]): boolean {
  return allowed.some((entry) => {
    if (!entry.includes("*.")) return entry === origin;
    const [scheme, host] = entry.split("://*.");
    const match = origin.match(/^(https?):\/\/(.+)$/);
    return !!match && `${match[1]}` === scheme && match[2].endsWith(`.${host}`);
  });
}
