/**
 * The administrators' lost-password screens: /admin/password-reset and
 * /admin/password-reset/<token>, the portal's function (server/auth/password_reset.ts) for the
 * admin role. Mounted before the sign-in check.
 */
import { type Context, Hono } from "hono";
import type { Deps } from "../../deps.ts";
import { ADMIN_LOGIN_HOURS, setAdminCookie } from "../../auth/cookies.ts";
import {
  type PasswordProblem,
  requestPasswordReset,
  resetLinkAccount,
  resetPassword,
} from "../../auth/password_reset.ts";
import { clientAddress } from "../../http/client_address.ts";
import { postedFromAnotherSite } from "../../http/cross_site.ts";
import { publicOrigin, requestOrigin } from "../../http/public_origin.ts";
import { retryAfterSeconds, waitText } from "../../http/wait_text.ts";
import type { ScreenEnv } from "./form_helpers.ts";
import { adminPage, Banner, Field } from "./layout.tsx";

const TOKEN = ":token{[A-Za-z0-9_-]{43}}";

const PROBLEMS: Record<PasswordProblem, string> = {
  too_short: "at least 12 characters",
  too_long: "at most 200 characters",
  too_common: "too common or too simple",
  contains_email: "must not contain your e-mail name",
};

const CROSS_SITE = "This form was sent from another site. Use this page instead.";

/** The admin lost-password screens. */
export function adminPasswordResetScreens(deps: Deps): Hono<ScreenEnv> {
  const screens = new Hono<ScreenEnv>();
  const back = (
    <p>
      <a href="/admin/login">Back to sign-in</a>
    </p>
  );

  const forgot = (
    c: Context,
    p: { email: string; error?: string; notice?: string },
    status = 200,
  ) =>
    c.html(
      adminPage(
        null,
        "Forgot your password?",
        deps.mail
          ? (
            <>
              <Banner notice={p.notice} error={p.error} />
              {p.notice ? null : (
                <form method="post" action="/admin/password-reset">
                  <p>
                    Enter your administrator e-mail: we send it a link to choose a new password.
                  </p>
                  <Field name="email" label="E-mail" type="email" value={p.email} errors={{}} />
                  <button type="submit">Send the link</button>
                </form>
              )}
              {back}
            </>
          )
          : (
            <>
              <p role="status">
                Password reset by e-mail is not configured (SMTP_URL is not set). Set the password
                with ADMIN_EMAIL and ADMIN_PASSWORD at start instead.
              </p>
              {back}
            </>
          ),
      ),
      status as 200,
    );

  const invalid = (c: Context) =>
    c.html(
      adminPage(
        null,
        "Choose a new password",
        <>
          <Banner error="This link is invalid, already used or expired. Ask for a new one." />
          <p>
            <a href="/admin/password-reset">Forgot your password?</a>
          </p>
        </>,
      ),
      410,
    );

  const form = (c: Context, token: string, email: string, error?: string, status = 200) =>
    c.html(
      adminPage(
        null,
        "Choose a new password",
        <form method="post" action={`/admin/password-reset/${token}`}>
          <Banner error={error} />
          <input type="hidden" name="username" value={email} autocomplete="username" />
          <Field
            name="password"
            label="New password (at least 12 characters)"
            type="password"
            errors={{}}
          />
          <Field name="confirm" label="Repeat the new password" type="password" errors={{}} />
          <button type="submit">Save and sign in</button>
        </form>,
      ),
      status as 200,
    );

  screens.get("/password-reset", (c) => forgot(c, { email: "" }));

  screens.post("/password-reset", async (c) => {
    const body = await c.req.parseBody();
    const email = typeof body.email === "string" ? body.email.trim().slice(0, 320) : "";
    if (postedFromAnotherSite(c, requestOrigin(deps.config, c))) {
      return forgot(c, { email, error: CROSS_SITE }, 403);
    }
    if (!deps.mail) return forgot(c, { email }, 503);
    const result = await requestPasswordReset(deps, {
      email,
      role: "admin",
      address: clientAddress(deps, c) ?? "unknown",
      // A link sent away: PUBLIC_URL, whatever host this request came through.
      linkBase: `${publicOrigin(deps.config)}/admin/password-reset`,
    });
    if (result.kind === "wait") {
      c.header("Retry-After", String(retryAfterSeconds(result.ms)));
      return forgot(
        c,
        { email, error: `Too many requests. Try again in ${waitText(result.ms)}.` },
        429,
      );
    }
    return forgot(c, {
      email,
      notice: `If an administrator account exists for ${email}, we sent it a link. It works ` +
        `for ${deps.config.passwordResetTtlMinutes} minutes.`,
    });
  });

  screens.get(`/password-reset/${TOKEN}`, async (c) => {
    const token = c.req.param("token");
    const account = await resetLinkAccount(deps, token, "admin");
    return account ? form(c, token, account.email) : invalid(c);
  });

  screens.post(`/password-reset/${TOKEN}`, async (c) => {
    const token = c.req.param("token");
    const body = await c.req.parseBody();
    const password = typeof body.password === "string" ? body.password : "";
    const account = await resetLinkAccount(deps, token, "admin");
    if (!account) return invalid(c);
    if (postedFromAnotherSite(c, requestOrigin(deps.config, c))) {
      return form(c, token, account.email, CROSS_SITE, 403);
    }
    if (password !== body.confirm) {
      return form(c, token, account.email, "The two passwords differ.", 400);
    }
    const result = await resetPassword(deps, {
      token,
      role: "admin",
      password,
      loginHours: ADMIN_LOGIN_HOURS,
    });
    if (result.kind === "invalid_link") return invalid(c);
    if (result.kind === "invalid_password") {
      return form(c, token, account.email, `The password: ${PROBLEMS[result.problem]}.`, 400);
    }
    setAdminCookie(c, deps.config.publicUrl, result.loginToken);
    return c.redirect("/admin/apps", 303);
  });

  return screens;
}
