/**
 * A posted password sign-in form, checked the same way by the portal and the admin screens: a
 * browser's cross-site post is refused (server/http/cross_site.ts), then the form's pre-session
 * CSRF token (sign_in_token.ts), then the limiter and the password (logins.ts). A wait sets
 * `Retry-After`. Each side turns the outcome into its own page. The portal's form may name an
 * organization (field `org`, or `?org=` on the posted URL); the admin's never does.
 */
import type { Context } from "hono";
import type { Deps } from "../deps.ts";
import { clientAddress } from "../http/client_address.ts";
import { postedFromAnotherSite } from "../http/cross_site.ts";
import { requestOrigin } from "../http/public_origin.ts";
import { retryAfterSeconds } from "../http/wait_text.ts";
import { namedOrganization, type PasswordSignIn, type SignInResult } from "./logins.ts";
import { SIGN_IN_TOKEN, signInTokenMatches } from "./sign_in_token.ts";

/** What became of a posted sign-in. */
export type SignInOutcome = SignInResult | { kind: "cross_site" } | { kind: "expired" };

/** What a sign-in form carried. */
export interface TypedSignIn {
  email: string;
  password: string;
  next: unknown;
  /** The organization slug named (normalized), or null. */
  organization: string | null;
}

/** Reads and checks the posted form; answers what was typed, the asked `next` and the outcome. */
export async function postedSignIn(
  deps: Deps,
  c: Context,
  signIn: PasswordSignIn,
): Promise<TypedSignIn & { outcome: SignInOutcome }> {
  const form = await c.req.parseBody();
  const email = typeof form.email === "string" ? form.email.trim().slice(0, 320) : "";
  const password = typeof form.password === "string" ? form.password : "";
  const organization = namedOrganization(form.org ?? c.req.query("org"));
  const typed = { email, password, next: form.next, organization };
  if (postedFromAnotherSite(c, requestOrigin(deps.config, c))) {
    return { ...typed, outcome: { kind: "cross_site" } };
  }
  if (!signInTokenMatches(c, form[SIGN_IN_TOKEN])) {
    return { ...typed, outcome: { kind: "expired" } };
  }
  const outcome = await signIn.attempt(deps, {
    email,
    password,
    organization,
    address: clientAddress(deps, c) ?? "unknown",
  });
  if (outcome.kind === "wait") c.header("Retry-After", String(retryAfterSeconds(outcome.ms)));
  return { ...typed, outcome };
}
