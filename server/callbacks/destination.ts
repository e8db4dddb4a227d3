/**
 * Where the service may send callbacks and token requests. A CRM's URL is typed by an
 * administrator or carried by a launch (`client.instanceUrl`), so it must not reach into the
 * service's own network (SSRF): only `https://`, and never a loopback, private, link-local,
 * shared, multicast or reserved address, checked on the literal host when the URL is configured
 * and on every address its name resolves to before each request. CALLBACK_ALLOW_PRIVATE_NETWORKS
 * lifts both rules (and allows `http://`) for development, tests and the demo.
 */

/** Resolves a host name to its IPv4 and IPv6 addresses. */
export type Resolver = (host: string) => Promise<string[]>;

/** Deno's resolver: A and AAAA records (either may be missing). */
export const dnsResolver: Resolver = async (host) => {
  const [v4, v6] = await Promise.allSettled([
    Deno.resolveDns(host, "A"),
    Deno.resolveDns(host, "AAAA"),
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

function ipv4Parts(ip: string): number[] | null {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(ip);
  if (!m) return null;
  const parts = m.slice(1).map(Number);
  return parts.every((p) => p <= 255) ? parts : null;
}

/** IPv4 ranges that are not the public internet (RFC 6890 and friends). */
function ipv4Private([a, b]: number[]): boolean {
  return a === 0 || a === 10 || a === 127 || a >= 224 || // this, private, loopback, multicast+
    (a === 100 && b >= 64 && b <= 127) || // shared address space (CGNAT)
    (a === 169 && b === 254) || // link-local (cloud metadata lives here)
    (a === 172 && b >= 16 && b <= 31) ||
    (a === 192 && b === 168) ||
    (a === 192 && b === 0) || // IETF protocol assignments, 192.0.2.0/24 documentation
    (a === 198 && (b === 18 || b === 19)) || // benchmarking
    (a === 198 && b === 51) || (a === 203 && b === 0); // documentation ranges (approximate)
}

/** Expands an IPv6 address to its 8 groups; null when it is not one. */
function ipv6Groups(ip: string): number[] | null {
  let text = ip.toLowerCase().replace(/^\[|\]$/g, "").replace(/%.*$/, "");
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (v4) {
    const p = ipv4Parts(v4[1]);
    if (!p) return null;
    text = text.slice(0, -v4[1].length) +
      `${((p[0] << 8) | p[1]).toString(16)}:${((p[2] << 8) | p[3]).toString(16)}`;
  }
  if (!/^[0-9a-f:]+$/.test(text) || (text.match(/::/g) ?? []).length > 1) return null;
  const [head, tail] = text.includes("::") ? text.split("::") : [text, null];
  const parse = (s: string) => s ? s.split(":").map((g) => parseInt(g, 16)) : [];
  const h = parse(head);
  const t = tail === null ? [] : parse(tail);
  const groups = tail === null ? h : [...h, ...Array(8 - h.length - t.length).fill(0), ...t];
  if (groups.length !== 8 || groups.some((g) => !(g >= 0 && g <= 0xffff))) return null;
  return groups;
}

/** True when `ip` (IPv4 or IPv6 text) is not a public internet address. */
export function isPrivateAddress(ip: string): boolean {
  const v4 = ipv4Parts(ip);
  if (v4) return ipv4Private(v4);
  const g = ipv6Groups(ip);
  if (!g) return true; // not an address we understand: refuse
  const embedded = [g[6] >> 8, g[6] & 0xff, g[7] >> 8, g[7] & 0xff];
  if (g.slice(0, 5).every((x) => x === 0) && (g[5] === 0xffff || g[5] === 0)) {
    // ::ffff:a.b.c.d (mapped), ::a.b.c.d (compatible), ::1 and ::
    if (g[5] === 0 && g[6] === 0) return true;
    return ipv4Private(embedded);
  }
  if (g[0] === 0x64 && g[1] === 0xff9b) return ipv4Private(embedded); // NAT64
  return (g[0] & 0xfe00) === 0xfc00 || // unique local
    (g[0] & 0xffc0) === 0xfe80 || // link-local
    (g[0] & 0xff00) === 0xff00 || // multicast
    (g[0] === 0x2001 && g[1] === 0x0db8); // documentation
}

function hostOf(url: URL): string {
  return url.hostname.replace(/^\[|\]$/g, "").replace(/\.$/, "").toLowerCase();
}

function isLiteralAddress(host: string): boolean {
  return ipv4Parts(host) !== null || host.includes(":");
}

/**
 * What is wrong with a configured callback or token URL (a template: placeholders are replaced
 * by sample values first), or null. Checks the scheme and a literal host; names are resolved at
 * delivery time.
 */
export function destinationProblem(template: string, allowPrivate: boolean): string | null {
  const sample = template.replaceAll("{referenceId}", "ref").replaceAll("{webhookId}", "msg_1")
    .replaceAll("{instanceUrl}", "https://crm.example.com");
  let url: URL;
  try {
    url = new URL(sample);
  } catch {
    return "expected an absolute URL such as https://crm.example.com/hooks/{referenceId}";
  }
  if (url.username || url.password) return "credentials in the URL are not allowed";
  if (allowPrivate) {
    return url.protocol === "https:" || url.protocol === "http:"
      ? null
      : "expected an http:// or https:// URL";
  }
  if (url.protocol !== "https:") {
    return "expected an https:// URL (http:// only with CALLBACK_ALLOW_PRIVATE_NETWORKS=true)";
  }
  const host = hostOf(url);
  if (
    host === "localhost" || host.endsWith(".localhost") || host.endsWith(".local") ||
    host.endsWith(".internal") || (isLiteralAddress(host) && isPrivateAddress(host))
  ) {
    return `${host} is a loopback, private or link-local address (allowed only with ` +
      "CALLBACK_ALLOW_PRIVATE_NETWORKS=true)";
  }
  return null;
}

/** Thrown when a request may not go to a URL. */
export class DestinationRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = "DestinationRefused";
  }
}

/**
 * Checks a concrete URL before a request: the configured rules, then every address its host
 * resolves to. Throws DestinationRefused (the delivery fails at once) or the resolver's error
 * (a network failure: retried).
 */
export async function checkDestination(
  url: string,
  allowPrivate: boolean,
  resolve: Resolver = dnsResolver,
): Promise<void> {
  const problem = destinationProblem(url, allowPrivate);
  if (problem) throw new DestinationRefused(problem);
  if (allowPrivate) return;
  const host = hostOf(new URL(url));
  if (isLiteralAddress(host)) return;
  const addresses = await resolve(host);
  const bad = addresses.find(isPrivateAddress);
  if (bad) {
    throw new DestinationRefused(
      `${host} resolves to ${bad}, a loopback, private or link-local address`,
    );
  }
}
