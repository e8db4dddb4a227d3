/**
 * The portal's lost-password routes: {prefix}/password-reset (ask for a link) and
 * {prefix}/password-reset/<token> (choose the new password). The rules live in
 * server/auth/password_reset.ts; the admin screens have the same function. `?org=<slug>` (kept in
 * the form) asks for the link of that organization's agent only; without it every agent of the
 * e-mail gets its own link, and the answer is the same page either way.
 */
import { type Context, Hono } from "hono";
import type { Deps } from "../deps.ts";
import type { AppEnv } from "../http/env.ts";
import { contentLanguage } from "../launch/contract.ts";
import { clientAddress } from "../http/client_address.ts";
import { postedFromAnotherSite } from "../http/cross_site.ts";
import { publicOrigin, requestOrigin } from "../http/public_origin.ts";
import { retryAfterSeconds, waitText } from "../http/wait_text.ts";
import { hasPortalCookie, PORTAL_LOGIN_HOURS, setPortalCookie } from "../auth/cookies.ts";
import { currentAgent } from "./auth.ts";
import { requestPasswordReset, resetLinkAccount, resetPassword } from "../auth/password_reset.ts";
import { namedOrganization } from "../auth/logins.ts";
import { portalLanguage, translator } from "./i18n.ts";
import {
  forgotPage,
  linkInvalidPage,
  linkSentPage,
  newPasswordPage,
} from "./password_reset_pages.tsx";
import { portalPageMiddleware } from "./page_headers.ts";

/** A link token: 43 Base64url characters (256 bits). */
const TOKEN = ":token{[A-Za-z0-9_-]{43}}";

/** The lost-password routes of the portal, mounted at PORTAL_PREFIX. */
export function portalPasswordResetRoutes(deps: Deps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const prefix = deps.config.portalPrefix;
  // The page's language: the account's (a reset link), else the language of the browser's portal
  // login when it has one (one language per login), else the browser's Accept-Language.
  const base = async (c: Context<AppEnv>, language?: string | null) => {
    const login = language || !hasPortalCookie(c) ? null : await currentAgent(deps, c);
    const lang = portalLanguage(
      language ??
        contentLanguage(login ? login.locale : c.req.header("Accept-Language")?.split(",")[0]),
    );
    return { t: translator(lang), language: lang, prefix };
  };

  app.use("/password-reset", ...portalPageMiddleware);
  app.use("/password-reset/*", ...portalPageMiddleware);

  app.get("/password-reset", async (c) =>
    c.html(
      forgotPage({
        ...(await base(c)),
        organization: namedOrganization(c.req.query("org")),
        enabled: deps.mail !== null,
        email: "",
        error: null,
      }),
    ));

  app.post("/password-reset", async (c) => {
    const form = await c.req.parseBody();
    const email = typeof form.email === "string" ? form.email.trim().slice(0, 320) : "";
    const organization = namedOrganization(form.org ?? c.req.query("org"));
    const b = { ...(await base(c)), organization };
    if (postedFromAnotherSite(c, requestOrigin(deps.config, c))) {
      return c.html(
        forgotPage({ ...b, enabled: deps.mail !== null, email, error: b.t("crossSiteSignIn") }),
        403,
      );
    }
    if (!deps.mail) return c.html(forgotPage({ ...b, enabled: false, email, error: null }), 503);
    const result = await requestPasswordReset(deps, {
      email,
      role: "agent",
      organization,
      address: clientAddress(deps, c) ?? "unknown",
      // A link sent away: PUBLIC_URL, whatever host this request came through.
      linkBase: `${publicOrigin(deps.config)}${prefix}/password-reset`,
    });
    if (result.kind === "wait") {
      c.header("Retry-After", String(retryAfterSeconds(result.ms)));
      const wait = waitText(result.ms, b.language);
      return c.html(
        forgotPage({ ...b, enabled: true, email, error: b.t("tooManyResets", { wait }) }),
        429,
      );
    }
    return c.html(linkSentPage({ ...b, email, minutes: deps.config.passwordResetTtlMinutes }));
  });

  app.get(`/password-reset/${TOKEN}`, async (c) => {
    const token = c.req.param("token");
    const account = await resetLinkAccount(deps, token, "agent");
    if (!account) return c.html(linkInvalidPage(await base(c)), 410);
    const b = await base(c, account.locale ? contentLanguage(account.locale) : null);
    return c.html(newPasswordPage({ ...b, token, email: account.email, error: null }));
  });

  app.post(`/password-reset/${TOKEN}`, async (c) => {
    const token = c.req.param("token");
    const form = await c.req.parseBody();
    const password = typeof form.password === "string" ? form.password : "";
    const confirm = typeof form.confirm === "string" ? form.confirm : "";
    const account = await resetLinkAccount(deps, token, "agent");
    if (!account) return c.html(linkInvalidPage(await base(c)), 410);
    const b = await base(c, account.locale ? contentLanguage(account.locale) : null);
    const again = (error: string, status: 400 | 403) =>
      c.html(newPasswordPage({ ...b, token, email: account.email, error }), status);
    if (postedFromAnotherSite(c, requestOrigin(deps.config, c))) {
      return again(b.t("crossSiteSignIn"), 403);
    }
    if (password !== confirm) return again(b.t("passwordsDiffer"), 400);
    const result = await resetPassword(deps, {
      token,
      role: "agent",
      password,
      loginHours: PORTAL_LOGIN_HOURS,
    });
    if (result.kind === "invalid_link") return c.html(linkInvalidPage(b), 410);
    if (result.kind === "invalid_password") return again(b.t(result.problem), 400);
    setPortalCookie(c, prefix, result.loginToken);
    return c.redirect(`${prefix}/sessions`, 303);
  });

  return app;
}
