/**
 * The Content-Security-Policy of every HTML page, in one place. A page family states only who may
 * frame it (`frame-ancestors`, see frame_ancestors.ts; none stated means 'none'); this middleware
 * completes the policy: nothing by default, the service's own scripts, styles, images and fetches,
 * inline code only with the request's nonce (`cspNonce`), forms posting to this origin only, no
 * <base>. HTML pages are also never stored by caches (they carry personal data and CSRF tokens).
 */
import type { Context, MiddlewareHandler } from "hono";
import { encodeBase64Url } from "../crypto/base64.ts";
import { randomBytes } from "../crypto/random_token.ts";
import type { AppEnv } from "./env.ts";

/** The nonce of this request's inline scripts and styles (made on first use). */
export function cspNonce(c: Context<AppEnv>): string {
  let nonce = c.get("cspNonce");
  if (!nonce) {
    nonce = encodeBase64Url(randomBytes(16));
    c.set("cspNonce", nonce);
  }
  return nonce;
}

/** The full policy of a page framed by `frameAncestors`, allowing inline code with `nonce`. */
export function pagePolicy(frameAncestors: string, nonce?: string): string {
  const inline = nonce ? ` 'nonce-${nonce}'` : "";
  return [
    "default-src 'none'",
    `script-src 'self'${inline}`,
    `style-src 'self'${inline}`,
    "img-src 'self' data:",
    "connect-src 'self'",
    "form-action 'self'",
    "base-uri 'none'",
    frameAncestors,
  ].join("; ");
}

/** Completes the CSP of HTML responses (see the module comment). */
export function completePagePolicy(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    await next();
    if (!c.res.headers.get("Content-Type")?.startsWith("text/html")) return;
    const given = c.res.headers.get("Content-Security-Policy") ?? "";
    if (!given.includes("default-src")) {
      const framing = given.split(";").map((d) => d.trim())
        .find((d) => d.startsWith("frame-ancestors")) ?? "frame-ancestors 'none'";
      c.res.headers.set("Content-Security-Policy", pagePolicy(framing, c.get("cspNonce")));
    }
    if (!c.res.headers.has("Cache-Control")) c.res.headers.set("Cache-Control", "no-store");
  };
}
