/**
 * What every admin API operation shares: its tag, the scope `admin`, its error responses (every
 * admin operation is behind the bearer check and the body limit of routes.ts), and the Location
 * of what a create made.
 */
import type { Context } from "hono";
import type { Deps } from "../../deps.ts";
import { publicOrigin } from "../../http/public_origin.ts";
import {
  type ErrorResponses,
  errorResponses,
  security,
  type Takes,
} from "../../api/openapi_shared.ts";

/** The shared responses of an admin operation that takes `takes`. */
export function adminErrors(takes: Takes = {}): ErrorResponses {
  return errorResponses("admin", takes);
}

/** The tag (`Admin: <group>`) and security requirement of an admin operation. */
export function adminTag(group: string): { tags: string[]; security: ReturnType<typeof security> } {
  return { tags: [`Admin: ${group}`], security: security("admin") };
}

/** Sets the Location of a 201: the created resource at `segments` under /api/v1/admin. */
export function setLocation(deps: Deps, c: Context, ...segments: string[]): void {
  const path = segments.map(encodeURIComponent).join("/");
  c.header("Location", `${publicOrigin(deps.config)}/api/v1/admin/${path}`);
}
