/**
 * Where the service may send callbacks and token requests. A CRM's URL is typed by an
 * administrator or carried by a launch (`client.instanceUrl`), so it must not reach into the
 * service's own network (SSRF). One set of rules, checked on the URL exactly as it is fetched:
 * an absolute `https://` URL without credentials, whose host is not a local name (`localhost`,
 * `*.localhost`, `*.local`, `*.internal`) and whose every address (a literal address is its own
 * only address; a name is resolved before each request) is a public one (isPrivateAddress).
 *
 * - checkDestination: before each request, on the concrete URL (no placeholder is replaced).
 * - urlProblem: the same without resolving names (a literal address is still checked).
 * - destinationProblem: a configured URL template: placeholders replaced by samples, then
 *   urlProblem.
 * - instanceOrigin: a launch's `client.instanceUrl`, kept as its origin.
 *
 * CALLBACK_ALLOW_PRIVATE_NETWORKS lifts the name and address rules (and allows `http://`) for
 * development, tests and the demo; credentials in URLs are refused either way.
 */
import { fillPlaceholders } from "./contract.ts";
import { untilAborted } from "./timeout.ts";

/**
 * Resolves a host name to its IPv4 and IPv6 addresses; `signal` ends the lookup (checkDestination
 * stops waiting for it then, whether or not the resolver listens).
 */
export type Resolver = (host: string, signal?: AbortSignal) => Promise<string[]>;

/** Deno's resolver: A and AAAA records (either may be missing). */
export const dnsResolver: Resolver = async (host, signal) => {
  const [v4, v6] = await Promise.allSettled([
    Deno.resolveDns(host, "A", { signal }),
    Deno.resolveDns(host, "AAAA", { signal }),
  ]);
  const found = [
    ...(v4.status === "fulfilled" ? v4.value : []),
    ...(v6.status === "fulfilled" ? v6.value : []),
  ];
  if (!found.length) {
    const reason = v4.status === "rejected" ? (v4.reason as Error).message : "no A/AAAA records";
    throw new Error(`cannot resolve ${host}: ${reason}`);
  }
  return found;
};

/**
 * The 32 bits of a dotted-quad IPv4 address, or null. Leading zeros are not read (is `0177` octal
 * or decimal?): such text is no address, which isPrivateAddress refuses. URL hosts come here
 * after the WHATWG parser has made `0x7f.1`, `2130706433` or `0177.0.0.1` into `127.0.0.1`.
 */
function ipv4Value(ip: string): number | null {
  const m = /^(0|[1-9]\d{0,2})\.(0|[1-9]\d{0,2})\.(0|[1-9]\d{0,2})\.(0|[1-9]\d{0,2})$/.exec(ip);
  if (!m) return null;
  const parts = m.slice(1).map(Number);
  if (parts.some((p) => p > 255)) return null;
  return ((parts[0] << 24) | (parts[1] << 16) | (parts[2] << 8) | parts[3]) >>> 0;
}

/** IPv4 blocks that are not the public internet (RFC 6890 and friends), as [first, bits]. */
const IPV4_REFUSED: [string, number][] = [
  ["0.0.0.0", 8], // "this network"
  ["10.0.0.0", 8], // private
  ["100.64.0.0", 10], // shared address space (carrier-grade NAT)
  ["127.0.0.0", 8], // loopback
  ["169.254.0.0", 16], // link-local (cloud metadata lives here)
  ["172.16.0.0", 12], // private
  ["192.0.0.0", 24], // IETF protocol assignments
  ["192.0.2.0", 24], // documentation
  ["192.88.99.0", 24], // 6to4 relay anycast
  ["192.168.0.0", 16], // private
  ["198.18.0.0", 15], // benchmarking
  ["198.51.100.0", 24], // documentation
  ["203.0.113.0", 24], // documentation
  ["224.0.0.0", 3], // multicast, reserved and broadcast: 224.0.0.0 and above
];

const IPV4_BLOCKS = IPV4_REFUSED.map(([first, bits]) => ({
  first: ipv4Value(first)!,
  mask: (0xffffffff << (32 - bits)) >>> 0,
}));

function ipv4Refused(value: number): boolean {
  return IPV4_BLOCKS.some((b) => ((value & b.mask) >>> 0) === b.first);
}

/** Expands an IPv6 address to its 8 groups; null when it is not one. */
function ipv6Groups(ip: string): number[] | null {
  let text = ip.toLowerCase().replace(/^\[|\]$/g, "").replace(/%.*$/, "");
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const v = ipv4Value(dotted[1]);
    if (v === null) return null;
    text = text.slice(0, -dotted[1].length) +
      `${(v >>> 16).toString(16)}:${(v & 0xffff).toString(16)}`;
  }
  if (!/^[0-9a-f:]+$/.test(text) || (text.match(/::/g) ?? []).length > 1) return null;
  const [head, tail] = text.includes("::") ? text.split("::") : [text, null];
  const parse = (s: string) =>
    s ? s.split(":").map((g) => /^[0-9a-f]{1,4}$/.test(g) ? parseInt(g, 16) : NaN) : [];
  const h = parse(head);
  const t = tail === null ? [] : parse(tail);
  if (tail !== null && h.length + t.length > 7) return null;
  const groups = tail === null ? h : [...h, ...Array(8 - h.length - t.length).fill(0), ...t];
  if (groups.length !== 8 || groups.some((g) => Number.isNaN(g))) return null;
  return groups;
}

function ipv6Refused(g: number[]): boolean {
  const zero = (from: number, to: number) => g.slice(from, to).every((x) => x === 0);
  const last32 = ((g[6] << 16) | g[7]) >>> 0;
  if (zero(0, 5) && g[5] === 0xffff) return ipv4Refused(last32); // ::ffff:a.b.c.d (mapped)
  if (zero(0, 4) && g[4] === 0xffff && g[5] === 0) return ipv4Refused(last32); // translated
  if (g[0] === 0x64 && g[1] === 0xff9b && zero(2, 6)) return ipv4Refused(last32); // NAT64
  if (g[0] === 0x2002) return ipv4Refused(((g[1] << 16) | g[2]) >>> 0); // 6to4
  // Outside 2000::/3, the global unicast space: ::/96 (unspecified, loopback, IPv4-compatible),
  // 64:ff9b:1::/48, 100::/64 (discard), fc00::/7 (unique local), fe80::/10 (link-local),
  // ff00::/8 (multicast) and the rest of the reserved space.
  if ((g[0] & 0xe000) !== 0x2000) return true;
  return (g[0] === 0x2001 && g[1] < 0x0200) || // IETF protocol assignments (Teredo, ORCHID)
    (g[0] === 0x2001 && g[1] === 0x0db8) || // documentation
    (g[0] === 0x3fff && g[1] < 0x1000); // documentation (3fff::/20)
}

/** True when `ip` (IPv4 or IPv6 text) is not a public internet address. */
export function isPrivateAddress(ip: string): boolean {
  const v4 = ipv4Value(ip);
  if (v4 !== null) return ipv4Refused(v4);
  const g = ipv6Groups(ip);
  return g === null || ipv6Refused(g); // not an address we understand: refuse
}

const HTTPS_ONLY =
  "expected an https:// URL (http:// only with CALLBACK_ALLOW_PRIVATE_NETWORKS=true)";

/** The host of a URL as fetch will see it (without brackets or final dot): literal or a name. */
interface Target {
  host: string;
  literal: boolean;
}

/** Parses a concrete URL (nothing replaced) and checks all but its addresses; or the problem. */
function target(text: string, allowPrivate: boolean): Target | string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return "expected an absolute URL (https://host/...)";
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    return allowPrivate ? "expected an http:// or https:// URL" : HTTPS_ONLY;
  }
  if (url.username || url.password) return "credentials in the URL are not allowed";
  if (!allowPrivate && url.protocol !== "https:") return HTTPS_ONLY;
  // http(s) hosts are parsed by the WHATWG rules: an IPv6 literal in brackets, an IPv4 literal
  // in any spelling made dotted-quad, or a domain (which cannot end in a number).
  const host = url.hostname.replace(/^\[|\]$/g, "").replace(/\.$/, "").toLowerCase();
  const literal = url.hostname.startsWith("[") || ipv4Value(host) !== null;
  if (
    !allowPrivate && !literal && (host === "localhost" || host.endsWith(".localhost") ||
      host.endsWith(".local") || host.endsWith(".internal"))
  ) {
    return `${host} is a loopback or internal name (allowed only with ` +
      "CALLBACK_ALLOW_PRIVATE_NETWORKS=true)";
  }
  return { host, literal };
}

/** The one address check, for a literal host (its own address) and a resolved name alike. */
function addressProblem(host: string, addresses: string[]): string | null {
  if (!addresses.length) return `${host} has no address`;
  const bad = addresses.find(isPrivateAddress);
  if (bad === undefined) return null;
  return `${bad === host ? host : `${host} resolves to ${bad}, which`} is a loopback, private, ` +
    "link-local or reserved address (allowed only with CALLBACK_ALLOW_PRIVATE_NETWORKS=true)";
}

/**
 * What is wrong with a URL exactly as it will be fetched, or null: scheme, credentials, local
 * names and a literal address. No placeholder is replaced; names are checked by
 * checkDestination when they are resolved.
 */
export function urlProblem(url: string, allowPrivate: boolean): string | null {
  const t = target(url, allowPrivate);
  if (typeof t === "string") return t;
  return allowPrivate || !t.literal ? null : addressProblem(t.host, [t.host]);
}

/** Sample values of the placeholders, for checking a template. */
const SAMPLES = {
  "{referenceId}": "ref",
  "{webhookId}": "msg_1",
  "{instanceUrl}": "https://crm.example.com",
};

/**
 * What is wrong with a configured callback or token URL (a template), or null. `{instanceUrl}`
 * (a CRM instance's origin) may only begin it, followed by `/`, `?` or `#`; the placeholders are
 * then replaced by sample values and the result checked by urlProblem. Names are resolved, and
 * the concrete URL checked again as it is, before each request (checkDestination).
 */
export function destinationProblem(template: string, allowPrivate: boolean): string | null {
  const at = template.indexOf("{instanceUrl}");
  if (at > 0 || template.lastIndexOf("{instanceUrl}") !== at) {
    return "{instanceUrl} may only begin the URL, as in {instanceUrl}/services/data/...";
  }
  if (at === 0 && !/^\{instanceUrl\}(?:[/?#]|$)/.test(template)) {
    return "{instanceUrl} (the CRM instance's origin) must be followed by /, ? or #, as in " +
      "{instanceUrl}/services/data/...";
  }
  return urlProblem(fillPlaceholders(template, SAMPLES), allowPrivate);
}

/** Thrown when a request may not go to a URL. */
export class DestinationRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = "DestinationRefused";
  }
}

/**
 * `resolve(host)`, given up when `signal` aborts: a resolver that never answers (its server
 * unreachable) cannot hold an attempt past its deadline. The error names the host and the
 * signal's reason ("timed out after 10000 ms").
 */
async function resolveUntil(
  resolve: Resolver,
  host: string,
  signal?: AbortSignal,
): Promise<string[]> {
  if (!signal) return await resolve(host);
  try {
    signal.throwIfAborted();
    return await untilAborted(resolve(host, signal), signal);
  } catch (err) {
    if (!signal.aborted) throw err;
    const reason = signal.reason instanceof Error ? signal.reason.message : String(signal.reason);
    throw new Error(`cannot resolve ${host}: ${reason}`);
  }
}

/**
 * Checks the concrete URL of a request, exactly as it will be fetched (no placeholder is
 * replaced): urlProblem's rules, then every address of its host (a literal address, or every
 * address its name resolves to). Answers the checked addresses, for the request to connect to
 * (no second lookup), or null when CALLBACK_ALLOW_PRIVATE_NETWORKS leaves a name to the system.
 * Throws DestinationRefused (the delivery fails at once) or the resolver's error (a network
 * failure, or no answer before the signal `lookupSignal` makes aborts: retried). `lookupSignal` is
 * called only when a name is resolved, so a literal address or a name left to the system costs
 * no timer.
 */
export async function checkDestination(
  url: string,
  allowPrivate: boolean,
  resolve: Resolver = dnsResolver,
  lookupSignal?: () => AbortSignal,
): Promise<string[] | null> {
  const t = target(url, allowPrivate);
  if (typeof t === "string") throw new DestinationRefused(t);
  if (t.literal) {
    if (!allowPrivate) {
      const problem = addressProblem(t.host, [t.host]);
      if (problem) throw new DestinationRefused(problem);
    }
    return [t.host];
  }
  if (allowPrivate) return null;
  const addresses = await resolveUntil(resolve, t.host, lookupSignal?.());
  const problem = addressProblem(t.host, addresses);
  if (problem) throw new DestinationRefused(problem);
  return addresses;
}

/**
 * A launch's `client.instanceUrl` as the session keeps it, its origin (`https://host[:port]`;
 * path, query and fragment dropped), or why it is refused: `{` or `}` anywhere (a placeholder
 * would be expanded again), credentials, not an absolute http(s) URL, or urlProblem's rules.
 */
export function instanceOrigin(
  text: string,
  allowPrivate: boolean,
): { origin: string } | { problem: string } {
  if (/[{}]/.test(text)) return { problem: "{ and } are not allowed in it" };
  const problem = urlProblem(text, allowPrivate);
  if (problem) return { problem };
  const origin = new URL(text).origin;
  // A host spelled %7B...%7D is decoded into braces.
  if (/[{}]/.test(origin)) return { problem: "{ and } are not allowed in it" };
  return { origin };
}
