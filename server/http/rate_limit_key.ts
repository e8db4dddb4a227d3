/**
 * The key a client address is rate-limited under: an IPv6 client by its /64, an IPv4 one (or
 * the IPv4 client an IPv6 address carries) by itself. Every limit per address uses it.
 */
const HEX_GROUP = /^[0-9a-f]{1,4}$/;
const DOTTED = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;

/** The 32-bit value of a dotted IPv4 address, or null. */
function ipv4Value(text: string): number | null {
  const m = text.match(DOTTED);
  if (!m) return null;
  const bytes = m.slice(1).map(Number);
  return bytes.every((b) => b <= 255) ? bytes.reduce((v, b) => v * 256 + b, 0) : null;
}

/** The dotted form of a 32-bit value. */
function dotted(value: number): string {
  return [24, 16, 8, 0].map((shift) => Math.floor(value / 2 ** shift) % 256).join(".");
}

/**
 * The eight 16-bit groups of an IPv6 address (`::` expanded, a dotted IPv4 tail taken as the
 * last two groups), or null when the text is no IPv6 address.
 */
function ipv6Groups(text: string): number[] | null {
  const lastColon = text.lastIndexOf(":");
  if (text.includes(".", lastColon)) {
    const tail32 = ipv4Value(text.slice(lastColon + 1));
    if (tail32 === null) return null;
    text = `${text.slice(0, lastColon + 1)}${Math.floor(tail32 / 65536).toString(16)}:${
      (tail32 % 65536).toString(16)
    }`;
  }
  const halves = text.split("::");
  if (halves.length > 2) return null;
  const split = (part: string) => part ? part.split(":") : [];
  const head = split(halves[0]);
  const tail = halves.length === 2 ? split(halves[1]) : [];
  const missing = 8 - head.length - tail.length;
  if (halves.length === 2 ? missing < 1 : missing !== 0) return null;
  const groups = [...head, ...Array(missing).fill("0"), ...tail];
  return groups.every((g) => HEX_GROUP.test(g)) ? groups.map((g) => parseInt(g, 16)) : null;
}

/**
 * The IPv4 client an IPv6 address stands for, when it is one of the forms that carry one:
 * IPv4-mapped (`::ffff:0:0/96`), NAT64 (`64:ff9b::/96`, RFC 6052), 6to4 (`2002::/16`: the IPv4
 * host owns the /48) and Teredo (`2001::/32`: the client's address, inverted, in the last 32
 * bits). Else null.
 */
function embeddedIpv4(g: number[]): string | null {
  const low32 = g[6] * 65536 + g[7];
  const zeros = (from: number, to: number) => g.slice(from, to).every((v) => v === 0);
  if (zeros(0, 5) && g[5] === 0xffff) return dotted(low32);
  if (g[0] === 0x64 && g[1] === 0xff9b && zeros(2, 6)) return dotted(low32);
  if (g[0] === 0x2002) return dotted(g[1] * 65536 + g[2]);
  if (g[0] === 0x2001 && g[1] === 0) return dotted(0xffffffff - low32);
  return null;
}

/**
 * The key a client address is rate-limited under (the launch and OAuth failure limits, password
 * sign-in, password reset, screen-sharing codes). An IPv6 client is its /64 prefix, written
 * `2001:db8:0:1::/64`: one subscriber's network is a /64 (RFC 6177), so a client could take a new
 * address from it for every try and never be counted twice. An IPv4 address is itself, its port
 * dropped when a proxy wrote one into X-Forwarded-For (`203.0.113.9:51234`), and so is the IPv4
 * client inside an IPv6 address that carries one (IPv4-mapped, NAT64, 6to4, Teredo): a NAT64
 * prefix keyed by /64 would put every IPv4 client in one count. Text that is no address is
 * limited as written, lower-cased; no address at all (in-process requests) is `unknown`.
 */
export function rateLimitKey(address: string | null): string {
  if (!address) return "unknown";
  let text = address.trim().toLowerCase();
  const bracketed = text.match(/^\[([^\]]+)\](?::\d+)?$/);
  if (bracketed) text = bracketed[1];
  text = text.replace(/%.*$/, ""); // an IPv6 zone (fe80::1%eth0) names the server's interface
  const v4 = text.match(/^([\d.]+)(?::\d{1,5})?$/); // a proxy may write the port after it
  if (v4 && ipv4Value(v4[1]) !== null) return v4[1];
  const groups = text.includes(":") ? ipv6Groups(text) : null;
  if (!groups) return text || "unknown";
  return embeddedIpv4(groups) ??
    `${groups.slice(0, 4).map((g) => g.toString(16)).join(":")}::/64`;
}

/**
 * The /48 an IPv6 rate-limit key (`2001:db8:a:b::/64`) lies in, `2001:db8:a::/48`: one site's
 * network (a tunnel broker hands one out for free, 65,536 /64s), or null for any other key.
 */
export function networkKey(key: string): string | null {
  if (!key.endsWith("::/64")) return null;
  return `${key.slice(0, -5).split(":").slice(0, 3).join(":")}::/48`;
}
