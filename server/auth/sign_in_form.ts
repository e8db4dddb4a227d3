/**
 * A posted password sign-in form, checked the same way by the portal and the admin screens: a
 * browser's cross-site post is refused (server/http/cross_site.ts), then the form's pre-session
 * CSRF token (sign_in_token.ts), then the limiter and the password (logins.ts). A wait sets
 * `Retry-After`. Each side turns the outcome into its own page.
 */
import type { Context } from "hono";
import type { Deps } from "../deps.ts";
import { clientAddress } from "../http/client_address.ts";
import { postedFromAnotherSite } from "../http/cross_site.ts";
import { publicOrigin } from "../http/public_origin.ts";
import type { PasswordSignIn, SignInResult } from "./logins.ts";
import { SIGN_IN_TOKEN, signInTokenMatches } from "./sign_in_token.ts";

/** What became of a posted sign-in. */
export type SignInOutcome = SignInResult | { kind: "cross_site" } | { kind: "expired" };

/** Reads and checks the posted form; answers what was typed, the asked `next` and the outcome. */
export async function postedSignIn(
  deps: Deps,
  c: Context,
  signIn: PasswordSignIn,
): Promise<{ email: string; password: string; next: unknown; outcome: SignInOutcome }> {
  const form = await c.req.parseBody();
  const email = typeof form.email === "string" ? form.email.trim().slice(0, 320) : "";
  const password = typeof form.password === "string" ? form.password : "";
  const typed = { email, password, next: form.next };
  if (postedFromAnotherSite(c, publicOrigin(deps.config, c))) {
    return { ...typed, outcome: { kind: "cross_site" } };
  }
  if (!signInTokenMatches(c, form[SIGN_IN_TOKEN])) {
    return { ...typed, outcome: { kind: "expired" } };
  }
  const outcome = await signIn.attempt(deps, {
    email,
    password,
    address: clientAddress(deps, c) ?? "unknown",
  });
  if (outcome.kind === "wait") c.header("Retry-After", String(Math.ceil(outcome.ms / 1000)));
  return { ...typed, outcome };
}
