/**
 * The portal's lost-password pages: ask for a link, link sent, new password, invalid link. A
 * request opened with `?org=<slug>` keeps the organization in a hidden field and in the link back
 * to sign-in.
 */
import { Page, type T } from "./page_shell.tsx";

interface Base {
  t: T;
  language: string;
  prefix: string;
  /** The organization slug the page was opened for, or null. */
  organization?: string | null;
}

function withOrganization(path: string, organization: string | null | undefined): string {
  return organization ? `${path}?org=${encodeURIComponent(organization)}` : path;
}

function shell(p: Base, title: string, body: unknown): string {
  return Page({
    language: p.language,
    prefix: p.prefix,
    title,
    flavor: "standard",
    children: (
      <main>
        <h1>{title}</h1>
        {body}
        <p>
          <a href={withOrganization(`${p.prefix}/login`, p.organization)}>{p.t("signIn")}</a>
        </p>
      </main>
    ),
  });
}

/** "Forgot your password?": the e-mail form, or why the function is off. */
export function forgotPage(
  p: Base & { enabled: boolean; email: string; error: string | null },
): string {
  const { t } = p;
  return shell(
    p,
    t("forgotTitle"),
    p.enabled
      ? (
        <>
          {p.error ? <p class="error" role="alert">{p.error}</p> : null}
          <p>{t("forgotIntro")}</p>
          <form method="post" action={`${p.prefix}/password-reset`}>
            {p.organization ? <input type="hidden" name="org" value={p.organization} /> : null}
            <p>
              <label>
                {t("email")}
                <br />
                <input type="email" name="email" value={p.email} required autocomplete="email" />
              </label>
            </p>
            <button type="submit">{t("sendLink")}</button>
          </form>
        </>
      )
      : <p role="status">{t("resetOff")}</p>,
  );
}

/** The same answer for every address. */
export function linkSentPage(p: Base & { email: string; minutes: number }): string {
  return shell(
    p,
    p.t("forgotTitle"),
    <p role="status">{p.t("forgotSent", { email: p.email, minutes: String(p.minutes) })}</p>,
  );
}

/** The new-password form of a live link. */
export function newPasswordPage(
  p: Base & { token: string; email: string; error: string | null },
): string {
  const { t } = p;
  return shell(
    p,
    t("newPasswordTitle"),
    <>
      {p.error ? <p class="error" role="alert">{p.error}</p> : null}
      <form method="post" action={`${p.prefix}/password-reset/${p.token}`}>
        <input type="hidden" name="username" value={p.email} autocomplete="username" />
        <p>
          <label>
            {t("newPassword")}
            <br />
            <input
              type="password"
              name="password"
              required
              minlength={12}
              maxlength={200}
              autocomplete="new-password"
            />
          </label>
        </p>
        <p>
          <label>
            {t("repeatPassword")}
            <br />
            <input type="password" name="confirm" required autocomplete="new-password" />
          </label>
        </p>
        <button type="submit">{t("savePassword")}</button>
      </form>
    </>,
  );
}

/** A link that cannot be used (unknown, used, expired, superseded). */
export function linkInvalidPage(p: Base): string {
  return shell(
    p,
    p.t("newPasswordTitle"),
    <>
      <p class="error" role="alert">{p.t("linkInvalid")}</p>
      <p>
        <a href={withOrganization(`${p.prefix}/password-reset`, p.organization)}>
          {p.t("forgotLink")}
        </a>
      </p>
    </>,
  );
}
