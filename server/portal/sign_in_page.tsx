/**
 * The portal's sign-in page for agents with a password. It may name an organization: kept in a
 * hidden field when the page was opened with `?org=<slug>`, asked for in a text field when the
 * password was right for agents of several organizations, and shown back in that field after a
 * refusal that named one (docs/portal.md, "Sign-in").
 */
import { Page, type T } from "./page_shell.tsx";

/** How the form carries the organization: not at all, in a hidden field, or in a text field. */
export type OrganizationField = "none" | "hidden" | "text";

/** The sign-in page. */
export function loginPage(
  p: {
    t: T;
    language: string;
    prefix: string;
    next: string;
    email: string;
    /** The organization slug the form names, or null. */
    organization: string | null;
    organizationField: OrganizationField;
    error: string | null;
    /** A note that is not an error (the organization question). */
    note?: string | null;
    /** The pre-session CSRF token of the form. */
    signInToken: string;
  },
): string {
  const { t } = p;
  const org = p.organization ?? "";
  const withOrg = org ? `?org=${encodeURIComponent(org)}` : "";
  return Page({
    language: p.language,
    prefix: p.prefix,
    title: t("signInTitle"),
    flavor: "standard",
    children: (
      <main>
        <h1>{t("signInTitle")}</h1>
        {p.error ? <p class="error" role="alert">{p.error}</p> : null}
        {p.note ? <p role="status">{p.note}</p> : null}
        <form method="post" action={`${p.prefix}/login`}>
          <input type="hidden" name="next" value={p.next} />
          <input type="hidden" name="signin_csrf" value={p.signInToken} />
          {p.organizationField === "hidden" && org
            ? <input type="hidden" name="org" value={org} />
            : null}
          {p.organizationField === "text"
            ? (
              <p>
                <label>
                  {t("organization")}
                  <br />
                  <input
                    type="text"
                    name="org"
                    value={org}
                    required
                    autocomplete="organization"
                    autocapitalize="none"
                    maxlength={63}
                  />
                </label>
                <br />
                <small>{t("organizationHint")}</small>
              </p>
            )
            : null}
          <p>
            <label>
              {t("email")}
              <br />
              <input type="email" name="email" value={p.email} required autocomplete="username" />
            </label>
          </p>
          <p>
            <label>
              {t("password")}
              <br />
              <input type="password" name="password" required autocomplete="current-password" />
            </label>
          </p>
          <button type="submit">{t("signIn")}</button>
        </form>
        <p>
          <a href={`${p.prefix}/password-reset${withOrg}`}>{t("forgotLink")}</a>
        </p>
      </main>
    ),
  });
}
