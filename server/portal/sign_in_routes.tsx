/**
 * The portal's password sign-in: {prefix}/login. The form carries a pre-session CSRF token
 * (server/auth/sign_in_token.ts) and a browser's cross-site post is refused; attempts go through
 * the shared sign-in limiter. `?org=<slug>` (kept in the form) signs in within that organization;
 * without it, an e-mail whose password is right for agents of several organizations is asked for
 * the organization (docs/portal.md, "Sign-in").
 */
import { type Context, Hono } from "hono";
import type { Deps } from "../deps.ts";
import type { AppEnv } from "../http/env.ts";
import { namedOrganization, PasswordSignIn } from "../auth/logins.ts";
import { PORTAL_LOGIN_HOURS, setPortalCookie } from "../auth/cookies.ts";
import { issueSignInToken } from "../auth/sign_in_token.ts";
import { postedSignIn } from "../auth/sign_in_form.ts";
import { contentLanguage } from "../launch/contract.ts";
import { safeNext } from "../http/access.ts";
import { waitText } from "../http/wait_text.ts";
import { portalLanguage, type StringKey, translator } from "./i18n.ts";
import { loginPage, type OrganizationField } from "./sign_in_page.tsx";
import { portalPageMiddleware } from "./page_headers.ts";

/** Failed sign-ins allowed per account, and per client address, in LOGIN_WINDOW_MS. */
export const LOGIN_LIMITS = { perAccount: 5, perAddress: 20 };
/** The failed sign-in window. */
export const LOGIN_WINDOW_MS = 15 * 60_000;

/** What one sign-in page shows besides the form. */
interface FormState {
  next: string;
  email: string;
  organization: string | null;
  organizationField: OrganizationField;
  error: StringKey | null;
  note?: StringKey;
  /** With error tooManyAttempts: how long until the next attempt may be made. */
  waitMs?: number;
}

/** The sign-in routes of the portal, mounted at PORTAL_PREFIX. */
export function portalSignInRoutes(deps: Deps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const prefix = deps.config.portalPrefix;
  const side = { path: prefix, crossSiteFrame: true, secure: true };
  const signIn = new PasswordSignIn("agent", PORTAL_LOGIN_HOURS, {
    ...LOGIN_LIMITS,
    windowMs: LOGIN_WINDOW_MS,
  });
  app.use("/login", ...portalPageMiddleware);

  function loginForm(c: Context<AppEnv>, p: FormState, status: 200 | 401 | 403 | 429 = 200) {
    const language = portalLanguage(
      contentLanguage(c.req.header("Accept-Language")?.split(",")[0]),
    );
    const t = translator(language);
    return c.html(
      loginPage({
        t,
        language,
        prefix,
        next: p.next,
        email: p.email,
        organization: p.organization,
        organizationField: p.organizationField,
        error: p.error
          ? t(p.error, p.waitMs === undefined ? {} : { wait: waitText(p.waitMs, language) })
          : null,
        note: p.note ? t(p.note) : null,
        signInToken: issueSignInToken(c, side),
      }),
      status,
    );
  }

  app.get("/login", (c) => {
    const organization = namedOrganization(c.req.query("org"));
    return loginForm(c, {
      next: safeNext(prefix, c.req.query("next"), `${prefix}/sessions`),
      email: "",
      organization,
      organizationField: organization ? "hidden" : "none",
      error: null,
    });
  });

  app.post("/login", async (c) => {
    const { email, organization, next: asked, outcome } = await postedSignIn(deps, c, signIn);
    const next = safeNext(prefix, asked, `${prefix}/sessions`);
    // A posted organization stays in view, so that a mistyped one can be corrected.
    const form: Omit<FormState, "error"> = {
      next,
      email,
      organization,
      organizationField: organization ? "text" : "none",
    };
    switch (outcome.kind) {
      case "ok":
        setPortalCookie(c, prefix, outcome.token);
        return c.redirect(next, 303);
      case "cross_site":
        return loginForm(c, { ...form, error: "crossSiteSignIn" }, 403);
      case "expired":
        return loginForm(c, { ...form, error: "expired" }, 403);
      case "wait":
        return loginForm(c, { ...form, error: "tooManyAttempts", waitMs: outcome.ms }, 429);
      case "choose_organization":
        return loginForm(c, {
          ...form,
          organizationField: "text",
          error: null,
          note: "chooseOrganization",
        });
      case "refused":
        return loginForm(c, {
          ...form,
          error: organization ? "badLoginOrganization" : "badLogin",
        }, 401);
    }
  });

  return app;
}
