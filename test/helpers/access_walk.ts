/**
 * Walks every route a Hono app has registered, without any cookie or token, and reports each
 * answer that is not closed: access fails closed when every route either is on the public list,
 * answers 401, or sends a browser to the sign-in page of its family.
 */
import type { PublicMatcher } from "../../server/http/public_routes.ts";

/** A registered route as Hono lists it in `app.routes`. */
export interface WalkedRoute {
  method: string;
  path: string;
}

/** An app the walker can list and call. */
export interface Walkable {
  routes: readonly WalkedRoute[];
  request(path: string, init?: RequestInit): Response | Promise<Response>;
}

/** A family of pages with its own sign-in page: a refused browser is sent there. */
export interface SignInFamily {
  prefix: string;
  login: string;
}

/** What the walk saw. */
export interface WalkReport {
  /** Requests sent (method, path and Accept). */
  checked: number;
  /** Routes skipped because the public list names them. */
  publicRoutes: string[];
  /** One line per answer that is neither public, 401, nor the right sign-in redirect. */
  failures: string[];
}

/** Values tried, in order, for a param with a pattern; the first that matches is used. */
const SAMPLES = [
  "1",
  "00000000-0000-4000-8000-000000000000",
  "A".repeat(43),
  "sample.css",
  "sample",
];

/** The param name and pattern of one route segment (`:id{[0-9]+}`), or null for a literal. */
function paramOf(segment: string): { name: string; pattern: string | null } | null {
  if (!segment.startsWith(":")) return null;
  const brace = segment.indexOf("{");
  const name = (brace < 0 ? segment.slice(1) : segment.slice(1, brace)).replace(/\?$/, "");
  return { name, pattern: brace < 0 ? null : segment.slice(brace + 1, segment.lastIndexOf("}")) };
}

/** A concrete path for a route pattern: params and wildcards get sample values. */
export function samplePath(pattern: string): string {
  return pattern.split("/").map((segment) => {
    if (segment === "*") return "sample";
    const param = paramOf(segment);
    if (!param) return segment;
    if (!param.pattern) return "sample";
    const re = new RegExp(`^(?:${param.pattern})$`);
    const value = SAMPLES.find((s) => re.test(s));
    if (!value) throw new Error(`no sample value for :${param.name} in ${pattern}`);
    return value;
  }).join("/") || "/";
}

/** A route pattern with its params' patterns left out, to compare list entries with routes. */
export function bareRoute(pattern: string): string {
  return pattern.split("/").map((segment) => {
    const param = paramOf(segment);
    return param ? `:${param.name}` : segment;
  }).join("/");
}

function familyOf(families: readonly SignInFamily[], path: string): SignInFamily | undefined {
  return families.find((f) => path === f.prefix || path.startsWith(`${f.prefix}/`));
}

/** Why an answer is not closed, or null when it is. */
async function problem(
  res: Response,
  accept: "html" | "json",
  family: SignInFamily | undefined,
): Promise<string | null> {
  if (res.status === 401) {
    await res.body?.cancel();
    if (accept === "json" && !res.headers.get("Content-Type")?.startsWith("application/json")) {
      return "401 without a JSON body";
    }
    return null;
  }
  if (res.status === 404) {
    // No handler for this method (a route that is only middleware, or another method's route).
    const body = await res.text();
    // JSON clients get the route_not_found error, browsers the 404 page marked with its code.
    const notFound = body.includes('"code":"route_not_found"') ||
      body.includes('data-code="route_not_found"');
    return notFound ? null : `404 from a handler: ${body}`;
  }
  await res.body?.cancel();
  const location = res.headers.get("Location") ?? "";
  if ((res.status === 302 || res.status === 303) && accept === "html" && family) {
    const [page] = location.split("?");
    return page === family.login ? null : `redirect to ${location}, not ${family.login}`;
  }
  return `answered ${res.status}${location ? ` (Location: ${location})` : ""}`;
}

/**
 * Requests every registered route without credentials, as a browser (Accept text/html, a form
 * post) and as a JSON client; routes the public list names are skipped. A route listed with
 * method ALL (middleware or `app.all`) is tried with GET and POST.
 */
export async function walkRoutes(
  app: Walkable,
  isPublic: PublicMatcher,
  families: readonly SignInFamily[],
): Promise<WalkReport> {
  const report: WalkReport = { checked: 0, publicRoutes: [], failures: [] };
  const seen = new Set<string>();
  for (const route of app.routes) {
    for (const method of route.method === "ALL" ? ["GET", "POST"] : [route.method]) {
      const path = samplePath(route.path);
      const key = `${method} ${path}`;
      if (seen.has(key)) continue;
      seen.add(key);
      if (isPublic(method, path)) {
        report.publicRoutes.push(`${method} ${route.path}`);
        continue;
      }
      for (const accept of ["html", "json"] as const) {
        const body = method === "GET" || method === "HEAD"
          ? undefined
          : accept === "html"
          ? new URLSearchParams({ sample: "1" })
          : "{}";
        const res = await app.request(`http://portal.test${path}`, {
          method,
          headers: {
            Accept: accept === "html" ? "text/html" : "application/json",
            ...(accept === "json" && body ? { "Content-Type": "application/json" } : {}),
          },
          body,
        });
        report.checked += 1;
        const why = await problem(res, accept, familyOf(families, path));
        if (why) report.failures.push(`${method} ${route.path} (${path}, ${accept}): ${why}`);
      }
    }
  }
  return report;
}
