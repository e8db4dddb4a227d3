/**
 * The administrators' screens under /admin: sign-in, then apps, organizations, field settings,
 * custom fields, guided paths, users, teams, sessions, the launch log, the signed-request inspector
 * and Try launch, each group a sub-app of its own file. Server-rendered forms that work without
 * JavaScript; every POST carries the session's CSRF token. Access fails closed: the guard below
 * runs before every route and refuses a request without an administrator's login unless
 * server/http/public_routes.ts lists it.
 */
import { type Context, Hono, type MiddlewareHandler } from "hono";
import { deleteLogin } from "../../../db/queries/logins.ts";
import type { Deps } from "../../deps.ts";
import { AppError } from "../../http/errors.ts";
import {
  pageToComeBackTo,
  refuseSignedOut,
  safeNext,
  type SignInPlace,
} from "../../http/access.ts";
import { publicMatcher, publicRoutes } from "../../http/public_routes.ts";
import { waitText } from "../../http/wait_text.ts";
import { isFormType, mediaType } from "../../http/media_type.ts";
import { csrfMatches, PasswordSignIn } from "../../auth/logins.ts";
import { issueSignInToken, SIGN_IN_TOKEN } from "../../auth/sign_in_token.ts";
import { postedSignIn } from "../../auth/sign_in_form.ts";
import { ADMIN_LOGIN_HOURS, clearAdminCookie, setAdminCookie } from "../../auth/cookies.ts";
import { appDetailScreens } from "./app_detail.tsx";
import { deliveriesScreens } from "./deliveries_screens.tsx";
import { adminPasswordResetScreens } from "./password_reset_screens.tsx";
import { appsScreens } from "./apps_screens.tsx";
import { customFieldsScreens } from "./custom_fields_screens.tsx";
import { fieldSettingsScreens } from "./field_settings_screens.tsx";
import type { ScreenEnv } from "./form_helpers.ts";
import { guidedPathsScreens } from "./guided_paths_screens.tsx";
import { inspectorScreens } from "./inspector_screens.tsx";
import { launchLogScreens } from "./launch_log_screens.tsx";
import { organizationsScreens } from "./organizations_screens.tsx";
import { adminPage, Banner, type Errors, Field } from "./layout.tsx";
import { currentAdmin } from "./session.ts";
import { sessionsScreens } from "./sessions_screens.tsx";
import { teamsScreens } from "./teams_screens.tsx";
import { tryLaunchScreens } from "./try_launch_screens.tsx";
import { usersScreens } from "./users_screens.tsx";

export type { ScreenEnv } from "./form_helpers.ts";

/** Failed admin sign-ins allowed per account and per address in ADMIN_LOGIN_WINDOW_MS. */
export const ADMIN_LOGIN_LIMITS = { perAccount: 5, perAddress: 20 };
/** The failed admin sign-in window. */
export const ADMIN_LOGIN_WINDOW_MS = 15 * 60_000;

/** Where administrators sign in. */
const ADMIN_SIGN_IN: SignInPlace = {
  prefix: "/admin",
  login: "/admin/login",
  fallback: "/admin/apps",
  message: "Sign in as an administrator first",
};

/** A safe page under /admin to land on after signing in. */
function nextPage(next: unknown): string {
  return safeNext(ADMIN_SIGN_IN.prefix, next, ADMIN_SIGN_IN.fallback);
}

/** The page of a POST the admin guard refuses: `title`, and `text` saying why and what to do. */
function refusedPost(c: Context, status: 400 | 403 | 415, title: string, text: string) {
  return c.html(adminPage(null, title, <p class="alert" role="alert">{text}</p>), status);
}

/**
 * The admin screens' guard: a route on the public list passes; anything else needs an
 * administrator's login (stored as `admin`) and, on a POST, the login's CSRF token (the parsed
 * form is stored as `form`). Without a login: sign-in (a page) or 401 JSON.
 */
function adminAccess(deps: Deps): MiddlewareHandler<ScreenEnv> {
  const isPublic = publicMatcher(publicRoutes(deps.config.portalPrefix));
  return async (c, next) => {
    if (isPublic(c.req.method, c.req.path)) return await next();
    const admin = await currentAdmin(deps, c);
    if (!admin) {
      return refuseSignedOut(c, ADMIN_SIGN_IN, pageToComeBackTo(c, ADMIN_SIGN_IN.fallback));
    }
    c.set("admin", admin);
    if (c.req.method === "POST") {
      // What a browser's form sends; anything else would read as a form without its token.
      if (!isFormType(mediaType(c))) {
        return refusedPost(
          c,
          415,
          "Not a form",
          "The admin screens take HTML forms (application/x-www-form-urlencoded or " +
            "multipart/form-data), as the browser sends them. To script administration, use the " +
            "admin API under /api/v1/admin with a bearer token.",
        );
      }
      const form = await c.req.parseBody({ all: true });
      if (Array.isArray(form.csrf)) {
        return refusedPost(
          c,
          400,
          "Form sent twice over",
          `The form carried its CSRF token ${form.csrf.length} times: send each field once. ` +
            "Go back, reload the page and try again.",
        );
      }
      if (!csrfMatches(admin, form.csrf)) {
        return refusedPost(
          c,
          403,
          "Form expired",
          "This form is no longer valid (missing or wrong CSRF token). Go back, reload the page " +
            "and try again.",
        );
      }
      c.set("form", form);
    }
    await next();
  };
}

/** The /admin sub-app. */
export function adminScreens(deps: Deps): Hono<ScreenEnv> {
  const app = new Hono<ScreenEnv>();
  const signIn = new PasswordSignIn("admin", ADMIN_LOGIN_HOURS, {
    ...ADMIN_LOGIN_LIMITS,
    windowMs: ADMIN_LOGIN_WINDOW_MS,
  });

  app.use("*", async (c, next) => {
    await next();
    c.header("Cache-Control", "no-store");
    // A screen that states its whole policy (Try launch: its form and frame) keeps it.
    if (!c.res.headers.get("Content-Security-Policy")?.includes("default-src")) {
      c.header("Content-Security-Policy", "frame-ancestors 'none'");
    }
  });
  // Before every route: everything not on the public list needs an administrator.
  app.use("*", adminAccess(deps));

  const loginPage = (
    c: Context,
    p: { next: string; email: string; errors: Errors; error: string | null },
    status: 200 | 401 | 403 | 429 = 200,
  ) =>
    c.html(
      adminPage(
        null,
        "Administrator sign-in",
        <form method="post" action="/admin/login">
          <Banner error={p.error} />
          <input type="hidden" name="next" value={p.next} />
          <input
            type="hidden"
            name={SIGN_IN_TOKEN}
            value={issueSignInToken(c, {
              path: "/admin",
              crossSiteFrame: false,
              secure: deps.config.publicUrl.startsWith("https:"),
            })}
          />
          <Field name="email" label="E-mail" type="email" value={p.email} errors={p.errors} />
          <Field name="password" label="Password" type="password" errors={p.errors} />
          <button type="submit">Sign in</button>
          <p>
            <a href="/admin/password-reset">Forgot your password?</a>
          </p>
        </form>,
      ),
      status,
    );

  // The guided-path screens were once at /admin/catalog; old links and bookmarks still work.
  app.get("/catalog/*", (c) => {
    const url = new URL(c.req.url);
    return c.redirect(
      url.pathname.replace("/admin/catalog", "/admin/guided-paths") + url.search,
      301,
    );
  });
  app.get("/catalog", (c) => c.redirect("/admin/guided-paths", 301));

  app.get(
    "/login",
    (c) =>
      loginPage(c, { next: nextPage(c.req.query("next")), email: "", errors: {}, error: null }),
  );

  app.post("/login", async (c) => {
    const { email, password, next: asked, outcome } = await postedSignIn(deps, c, signIn);
    const next = nextPage(asked);
    const page = (error: string, status: 401 | 403 | 429, errors: Errors = {}) =>
      loginPage(c, { next, email, errors, error }, status);
    switch (outcome.kind) {
      case "ok":
        setAdminCookie(c, deps.config.publicUrl, outcome.token);
        return c.redirect(next, 303);
      case "cross_site":
        return page(
          "This sign-in form was sent from another site. Sign in on this page instead.",
          403,
        );
      case "expired":
        return page("This form expired. Sign in again.", 403);
      case "wait":
        return page(`Too many failed attempts. Try again in ${waitText(outcome.ms)}.`, 429);
      case "refused":
        return page("Wrong e-mail or password, or not an administrator.", 401, {
          ...(email ? {} : { email: "required" }),
          ...(password ? {} : { password: "required" }),
        });
    }
  });

  app.route("/", adminPasswordResetScreens(deps));

  app.post("/logout", async (c) => {
    await deleteLogin(deps.sql, c.get("admin").tokenHash);
    clearAdminCookie(c, deps.config.publicUrl);
    return c.redirect("/admin/login", 303);
  });

  app.get("/", (c) => c.redirect("/admin/apps", 303));
  // The list and form first: /apps/new is not an app's page.
  app.route("/", appsScreens(deps));
  app.route("/", appDetailScreens(deps));
  app.route("/", tryLaunchScreens(deps));
  app.route("/", deliveriesScreens(deps));
  app.route("/", organizationsScreens(deps));
  app.route("/", fieldSettingsScreens(deps));
  app.route("/", customFieldsScreens(deps));
  app.route("/", guidedPathsScreens(deps));
  app.route("/", usersScreens(deps));
  app.route("/", teamsScreens(deps));
  app.route("/", sessionsScreens(deps));
  app.route("/", launchLogScreens(deps));
  app.route("/", inspectorScreens(deps));

  app.onError((err, c) => {
    if (err instanceof AppError && (err.status === 404 || err.status === 409)) {
      return c.html(
        adminPage(
          null,
          err.status === 404 ? "Not found" : "Conflict",
          (
            <p class="alert" role="alert">
              {err.message} <a href="/admin/apps">Back to the administration</a>
            </p>
          ),
        ),
        err.status,
      );
    }
    throw err;
  });
  return app;
}
