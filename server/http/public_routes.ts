/**
 * The routes anyone may call without a login: the one list access checks read. The portal's guard
 * (server/portal/guard.ts) and the admin screens' guard (server/admin/screens/routes.tsx) refuse
 * every other request without a login before any handler runs (server/http/access.ts); everything
 * else mounted (the REST API, /internal) answers 401 without its own credential. test/server/http/access_walk_test.ts walks every registered route without a
 * cookie or token and fails on a route that answers anything else and is not on this list.
 * Paths use Hono's route syntax; a param without a pattern matches one path segment.
 */
import { TrieRouter } from "hono/router/trie-router";
import { WIDGET_FILES } from "../assets/routes.ts";
import { CONTINUE_ROUTE, LAUNCH_ROUTE, VALIDATE_ROUTE, WARM_UP_ROUTE } from "../launch/contract.ts";

/** A password-reset link's token: 43 Base64url characters, as the reset routes accept. */
const TOKEN = ":token{[A-Za-z0-9_-]{43}}";

/** One public route: method (ALL: any), path pattern, and why it needs no login. */
export interface PublicRoute {
  method: "GET" | "POST" | "OPTIONS" | "ALL";
  path: string;
  reason: string;
}

/** Every public route of a service whose portal is mounted at `portalPrefix`. */
export function publicRoutes(portalPrefix: string): readonly PublicRoute[] {
  const p = portalPrefix;
  return [
    { method: "GET", path: "/", reason: "the entry page: what the service is, links onward" },
    { method: "GET", path: "/healthz", reason: "liveness probe" },
    { method: "GET", path: "/readyz", reason: "readiness probe" },
    {
      method: "GET",
      path: "/.well-known/oauth-authorization-server",
      reason: "OAuth metadata (RFC 8414) tells clients where the token endpoint is",
    },
    {
      method: "POST",
      path: "/api/v1/oauth2/token",
      reason: "the client-credentials grant: the client's id and secret are the credential",
    },
    {
      method: "POST",
      path: "/api/v1/oauth2/revoke",
      reason: "token revocation (RFC 7009): the client authenticates in the request",
    },
    {
      method: "POST",
      path: "/api/v1/oauth2/introspect",
      reason: "token introspection (RFC 7662): the client authenticates in the request",
    },
    { method: "GET", path: "/api/v1/openapi.json", reason: "the API's OpenAPI document" },
    { method: "GET", path: "/api/v1/docs", reason: "the API reference page" },
    { method: "GET", path: "/assets/:name", reason: "static styles and scripts of the pages" },
    { method: "GET", path: "/favicon.ico", reason: "the service's icon" },
    { method: "GET", path: `${p}/assets/:name`, reason: "static styles and scripts, portal" },
    {
      method: "GET",
      path: `${p}${WARM_UP_ROUTE}`,
      reason: "the warm-up page host pages frame: it reads no cookie and shows nothing",
    },
    ...Object.keys(WIDGET_FILES).map((name): PublicRoute => ({
      method: "GET",
      path: `${p}/widget/${name}`,
      reason: "the built <portal-launcher> element or bridge that host pages load",
    })),
    {
      method: "ALL",
      path: `${p}${LAUNCH_ROUTE}`,
      reason: "the launch: the signed request is the credential (other methods: 405)",
    },
    {
      method: "ALL",
      path: `${p}${VALIDATE_ROUTE}`,
      reason: "the launch's dry run and its CORS preflight: the signed request is the credential",
    },
    {
      method: "POST",
      path: `${p}${CONTINUE_ROUTE}`,
      reason: "a launch's continue page: the new login's token in the form is the credential",
    },
    { method: "GET", path: `${p}/login`, reason: "the portal's sign-in form" },
    { method: "POST", path: `${p}/login`, reason: "the portal's sign-in" },
    { method: "GET", path: `${p}/password-reset`, reason: "asking for a password-reset link" },
    { method: "POST", path: `${p}/password-reset`, reason: "asking for a password-reset link" },
    {
      method: "GET",
      path: `${p}/password-reset/${TOKEN}`,
      reason: "a password-reset link: the token is the credential",
    },
    {
      method: "POST",
      path: `${p}/password-reset/${TOKEN}`,
      reason: "choosing a new password: the link's token is the credential",
    },
    { method: "GET", path: `${p}/r`, reason: "screen sharing: the customer types a code" },
    {
      method: "POST",
      path: `${p}/r`,
      reason: "screen sharing: the code is the credential (limited like sign-in)",
    },
    {
      method: "GET",
      path: `${p}/r/${TOKEN}`,
      reason: "screen sharing: the customer's join link; the token is the credential",
    },
    {
      method: "GET",
      path: `${p}/r/${TOKEN}/ws`,
      reason: "screen sharing: the customer's signaling socket; the join token is the credential",
    },
    {
      method: "GET",
      path: `${p}/remote/ice`,
      reason: "screen sharing: ICE servers for a join token or a portal login (checked inside)",
    },
    { method: "GET", path: "/admin/login", reason: "the administrators' sign-in form" },
    { method: "POST", path: "/admin/login", reason: "the administrators' sign-in" },
    { method: "GET", path: "/admin/password-reset", reason: "asking for a password-reset link" },
    { method: "POST", path: "/admin/password-reset", reason: "asking for a password-reset link" },
    {
      method: "GET",
      path: `/admin/password-reset/${TOKEN}`,
      reason: "a password-reset link: the token is the credential",
    },
    {
      method: "POST",
      path: `/admin/password-reset/${TOKEN}`,
      reason: "choosing a new password: the link's token is the credential",
    },
    {
      method: "GET",
      path: "/admin/catalog",
      reason: "old links to the guided paths: a redirect to the (signed-in) new address",
    },
    {
      method: "GET",
      path: "/admin/catalog/*",
      reason: "old links to the guided paths: a redirect to the (signed-in) new address",
    },
  ];
}

/** Finds the public route a request matches, or null. */
export type PublicMatcher = (method: string, path: string) => PublicRoute | null;

/** A matcher over `routes` (HEAD is matched as GET, as Hono routes it). */
export function publicMatcher(routes: readonly PublicRoute[]): PublicMatcher {
  const router = new TrieRouter<PublicRoute>();
  for (const route of routes) router.add(route.method, route.path, route);
  return (method, path) => {
    const [matches] = router.match(method === "HEAD" ? "GET" : method, path);
    return matches.length > 0 ? matches[0][0] : null;
  };
}
