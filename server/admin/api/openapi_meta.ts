/** What every admin API operation declares: its tag, the scope `admin`, and its error responses. */
import { errorResponses, security } from "../../api/openapi_shared.ts";

/** 400/401/403/404 of an admin operation. */
export const adminErrors: ReturnType<typeof errorResponses> = errorResponses("admin");

/** The tag (`Admin: <group>`) and security requirement of an admin operation. */
export function adminTag(group: string): { tags: string[]; security: ReturnType<typeof security> } {
  return { tags: [`Admin: ${group}`], security: security("admin") };
}
