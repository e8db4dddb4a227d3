/**
 * The administrators' screens under /admin: sign-in, then authentications, settings, the
 * guided-path catalog, users and teams, the launch log and the signed-request inspector.
 * Server-rendered forms that work without JavaScript; every POST carries the session's CSRF token.
 */
import { type Context, Hono } from "hono";
import { limitBody } from "../../http/body_limit.ts";
import { deleteLogin } from "../../../db/queries/logins.ts";
import { clientAddress } from "../../http/client_address.ts";
import type { Deps } from "../../deps.ts";
import type { AppEnv } from "../../http/env.ts";
import { AppError } from "../../http/errors.ts";
import { csrfMatches, PasswordSignIn } from "../../auth/logins.ts";
import { appScreens } from "./apps_screens.tsx";
import { configScreens } from "./config_screens.tsx";
import { type AdminContext, adminPage, Banner, type Errors, Field } from "./layout.tsx";
import { logScreens } from "./log_screens.tsx";
import { peopleScreens } from "./people_screens.tsx";
import { type AdminSession, currentAdmin } from "./session.ts";
import { ADMIN_LOGIN_HOURS, clearAdminCookie, setAdminCookie } from "../../auth/cookies.ts";

/** What every screen group gets. */
export interface ScreenEnv extends AppEnv {
  Variables: AppEnv["Variables"] & { admin: AdminSession; form: Record<string, unknown> };
}

/** Failed admin sign-ins allowed per account and per address in ADMIN_LOGIN_WINDOW_MS. */
export const ADMIN_LOGIN_LIMITS = { perAccount: 5, perAddress: 20 };
/** The failed admin sign-in window. */
export const ADMIN_LOGIN_WINDOW_MS = 15 * 60_000;

function safeNext(next: unknown): string {
  return typeof next === "string" && /^\/admin(\/[A-Za-z0-9/_.?=&%-]*)?$/.test(next)
    ? next
    : "/admin/apps";
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
    c.header("Content-Security-Policy", "frame-ancestors 'none'");
    c.header("X-Content-Type-Options", "nosniff");
  });
  app.use("*", limitBody(256));

  const loginPage = (
    c: Context,
    p: { next: string; email: string; errors: Errors; error: string | null },
    status: 200 | 401 | 429 = 200,
  ) =>
    c.html(
      adminPage(
        null,
        "Administrator sign-in",
        <form method="post" action="/admin/login">
          <Banner error={p.error} />
          <input type="hidden" name="next" value={p.next} />
          <Field name="email" label="E-mail" type="email" value={p.email} errors={p.errors} />
          <Field name="password" label="Password" type="password" errors={p.errors} />
          <button type="submit">Sign in</button>
        </form>,
      ),
      status,
    );

  app.get(
    "/login",
    (c) =>
      loginPage(c, { next: safeNext(c.req.query("next")), email: "", errors: {}, error: null }),
  );

  app.post("/login", async (c) => {
    const form = await c.req.parseBody();
    const email = typeof form.email === "string" ? form.email.trim().slice(0, 320) : "";
    const password = typeof form.password === "string" ? form.password : "";
    const next = safeNext(form.next);
    const result = await signIn.attempt(deps, {
      email,
      password,
      address: clientAddress(deps, c) ?? "unknown",
    });
    if (result.kind === "wait") {
      c.header("Retry-After", String(Math.ceil(result.ms / 1000)));
      return loginPage(c, {
        next,
        email,
        errors: {},
        error: `Too many failed attempts. Try again in ${Math.ceil(result.ms / 60_000)} minutes.`,
      }, 429);
    }
    if (result.kind === "refused") {
      const errors: Errors = {};
      if (!email) errors.email = "required";
      if (!password) errors.password = "required";
      return loginPage(c, {
        next,
        email,
        errors,
        error: "Wrong e-mail or password, or not an administrator.",
      }, 401);
    }
    setAdminCookie(c, deps.config.publicUrl, result.token);
    return c.redirect(next, 303);
  });

  // Everything below needs an administrator; every POST needs the session's CSRF token.
  app.use("*", async (c, next) => {
    const admin = await currentAdmin(deps, c);
    if (!admin) {
      const url = new URL(c.req.url);
      const back = c.req.method === "GET" ? url.pathname + url.search : "/admin/apps";
      return c.redirect(`/admin/login?next=${encodeURIComponent(back)}`, 303);
    }
    c.set("admin", admin);
    if (c.req.method === "POST") {
      const form = await c.req.parseBody({ all: true });
      if (!csrfMatches(admin, form.csrf)) {
        return c.html(
          adminPage(
            null,
            "Form expired",
            <p class="alert" role="alert">
              This form is no longer valid (missing or wrong CSRF token). Go back, reload the page
              and try again.
            </p>,
          ),
          403,
        );
      }
      c.set("form", form);
    }
    await next();
  });

  app.post("/logout", async (c) => {
    await deleteLogin(deps.sql, c.get("admin").tokenHash);
    clearAdminCookie(c, deps.config.publicUrl);
    return c.redirect("/admin/login", 303);
  });

  app.get("/", (c) => c.redirect("/admin/apps", 303));
  appScreens(app, deps);
  configScreens(app, deps);
  peopleScreens(app, deps);
  logScreens(app, deps);

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

/** True when `err` is a refusal with one of `statuses` that the screen shows with the form. */
export function isRefusal<S extends 400 | 404 | 409>(
  err: unknown,
  ...statuses: S[]
): err is AppError & { status: S } {
  return err instanceof AppError && (statuses as number[]).includes(err.status);
}

/** The page context of a screen in `section`. */
export function adminContext(c: Context<ScreenEnv>, section: string): AdminContext {
  return { admin: c.get("admin"), csrf: c.get("admin").csrf, section };
}

/** A form value as text ("" when absent or a file). */
export function str(form: Record<string, unknown>, name: string): string {
  const v = form[name];
  const first = Array.isArray(v) ? v[0] : v;
  return typeof first === "string" ? first : "";
}

/** Every value of a repeated form field. */
export function all(form: Record<string, unknown>, name: string): string[] {
  const v = form[name];
  const list = Array.isArray(v) ? v : v === undefined ? [] : [v];
  return list.filter((x): x is string => typeof x === "string");
}
