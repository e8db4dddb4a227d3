/** Reads an application/x-www-form-urlencoded OAuth request body (RFC 6749 §3.2). */
import type { Context } from "hono";
import { OAuthError } from "../http/errors.ts";
import { mediaType } from "../http/media_type.ts";

/** Parses the form; rejects a wrong content type and repeated parameters with invalid_request. */
export async function readOAuthForm(c: Context): Promise<Record<string, string>> {
  if (mediaType(c) !== "application/x-www-form-urlencoded") {
    throw new OAuthError(
      400,
      "invalid_request",
      "The body must be application/x-www-form-urlencoded",
    );
  }
  const params = new URLSearchParams(await c.req.text());
  // No prototype: `constructor` or `__proto__` is a parameter name like any other.
  const out: Record<string, string> = Object.create(null);
  for (const [name, value] of params) {
    if (Object.hasOwn(out, name)) {
      throw new OAuthError(400, "invalid_request", `Parameter ${name} is repeated`);
    }
    out[name] = value;
  }
  return out;
}
