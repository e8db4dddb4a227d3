/**
 * Which host pages may frame the portal or call the dry run: an app's allowed origins, as the
 * `frame-ancestors` CSP directive and as an origin check for CORS, and the rule an allowed origin
 * must meet.
 */

/**
 * The Public Suffix List (tldts: about 1 MB of heap and 4 MB resident), loaded when the first
 * wildcard is checked, so a service nobody configures wildcards on never holds it.
 */
let publicSuffixList: Promise<typeof import("tldts")> | undefined;
const LOOPBACK = new Set(["localhost", "127.0.0.1", "[::1]"]);
const ORIGIN = /^(https?):\/\/(\*\.)?([A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*|\[::1\])(:\d{1,5})?$/;

/**
 * Why `entry` cannot be an allowed frame ancestor, or null when it can: an origin (no path) on
 * https (plain http only for localhost, 127.0.0.1 and [::1]); a wildcard `https://*.<domain>`
 * needs at least two labels after `*.` and must not sit directly on a public suffix (`*.com`,
 * `*.co.uk` and `*.github.io` are refused), checked against the Public Suffix List (tldts).
 */
export async function frameAncestorProblem(entry: string): Promise<string | null> {
  const m = ORIGIN.exec(entry);
  if (!m) {
    return "expected an origin such as https://crm.example.com or https://*.example.com (no path)";
  }
  const [, scheme, wildcard, host, port] = m;
  const lower = host.toLowerCase();
  if (port && Number(port.slice(1)) > 65535) return "the port must be 1-65535";
  if (scheme === "http" && !(LOOPBACK.has(lower) && !wildcard)) {
    return "must be https:// (plain http:// only for localhost, 127.0.0.1 and [::1])";
  }
  if (wildcard) {
    if (lower.split(".").length < 2) {
      return "a wildcard needs at least two labels after *. (e.g. https://*.example.com)";
    }
    const { getDomain, getPublicSuffix } = await (publicSuffixList ??= import("tldts"));
    const suffix = getPublicSuffix(lower, { allowPrivateDomains: true });
    if (suffix === lower || getDomain(lower, { allowPrivateDomains: true }) === null) {
      return `*.${lower} would allow every site under the public suffix ${lower}; name your own ` +
        "domain (e.g. https://*.example.com)";
    }
  }
  return null;
}

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
