/**
 * The portal's password sign-in: {prefix}/login. The form carries a pre-session CSRF token
 * (server/auth/sign_in_token.ts) and a browser's cross-site post is refused; attempts go through
 * the shared sign-in limiter.
 */
import { type Context, Hono } from "hono";
import type { Deps } from "../deps.ts";
import type { AppEnv } from "../http/env.ts";
import { clientAddress } from "../http/client_address.ts";
import { postedFromAnotherSite } from "../http/cross_site.ts";
import { publicOrigin } from "../http/public_origin.ts";
import { PasswordSignIn } from "../auth/logins.ts";
import { PORTAL_LOGIN_HOURS, setPortalCookie } from "../auth/cookies.ts";
import { issueSignInToken, SIGN_IN_TOKEN, signInTokenMatches } from "../auth/sign_in_token.ts";
import { contentLanguage } from "../launch/contract.ts";
import { safeNext } from "./auth.ts";
import { portalLanguage, type StringKey, translator } from "./i18n.ts";
import { loginPage } from "./pages.tsx";
import { portalPageMiddleware } from "./page_headers.ts";

/** Failed sign-ins allowed per account, and per client address, in LOGIN_WINDOW_MS. */
export const LOGIN_LIMITS = { perAccount: 5, perAddress: 20 };
/** The failed sign-in window. */
export const LOGIN_WINDOW_MS = 15 * 60_000;

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

  function loginForm(
    c: Context<AppEnv>,
    p: { next: string; email: string; error: StringKey | null; vars?: Record<string, string> },
    status: 200 | 401 | 403 | 429 = 200,
  ) {
    const language = portalLanguage(
      contentLanguage(c.req.header("Accept-Language")?.split(",")[0]),
    );
    const t = translator(language);
    return c.html(
      loginPage({
        t,
        language,
        action: `${prefix}/login`,
        next: p.next,
        email: p.email,
        error: p.error ? t(p.error, p.vars) : null,
        signInToken: issueSignInToken(c, side),
      }),
      status,
    );
  }

  app.get("/login", (c) =>
    loginForm(c, {
      next: safeNext(prefix, c.req.query("next"), `${prefix}/sessions`),
      email: "",
      error: null,
    }));

  app.post("/login", async (c) => {
    const form = await c.req.parseBody();
    const email = typeof form.email === "string" ? form.email.trim().slice(0, 320) : "";
    const password = typeof form.password === "string" ? form.password : "";
    const next = safeNext(prefix, form.next, `${prefix}/sessions`);
    if (postedFromAnotherSite(c, publicOrigin(deps.config, c))) {
      return loginForm(c, { next, email, error: "crossSiteSignIn" }, 403);
    }
    if (!signInTokenMatches(c, form[SIGN_IN_TOKEN])) {
      return loginForm(c, { next, email, error: "expired" }, 403);
    }
    const result = await signIn.attempt(deps, {
      email,
      password,
      address: clientAddress(deps, c) ?? "unknown",
    });
    if (result.kind === "wait") {
      c.header("Retry-After", String(Math.ceil(result.ms / 1000)));
      return loginForm(c, {
        next,
        email,
        error: "tooManyAttempts",
        vars: { minutes: String(Math.ceil(result.ms / 60_000)) },
      }, 429);
    }
    if (result.kind === "refused") return loginForm(c, { next, email, error: "badLogin" }, 401);
    setPortalCookie(c, prefix, result.token);
    return c.redirect(next, 303);
  });

  return app;
}
