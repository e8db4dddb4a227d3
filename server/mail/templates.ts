/**
 * The service's e-mails, each with a text and an HTML part, in the user's content language
 * (en, fr, es, de, like the portal; English otherwise).
 */
import type { Mail } from "../../db/queries/mail_outbox.ts";

export type Language = "en" | "fr" | "es" | "de";

const RESET = {
  en: {
    subject: "Reset your Portal Launcher password",
    hello: "Hello {name},",
    body: "Someone (probably you) asked to reset the password of your account. Open this link " +
      "within {minutes} minutes to choose a new password:",
    ignore: "If you did not ask for it, ignore this message: your password stays as it is.",
    button: "Choose a new password",
    about: "This message is about your account in the organization {organization}.",
  },
  fr: {
    subject: "Réinitialiser votre mot de passe Portal Launcher",
    hello: "Bonjour {name},",
    body: "Quelqu'un (probablement vous) a demandé à réinitialiser le mot de passe de votre " +
      "compte. Ouvrez ce lien dans les {minutes} minutes pour choisir un nouveau mot de passe :",
    ignore: "Si vous n'êtes pas à l'origine de cette demande, ignorez ce message : votre mot de " +
      "passe ne change pas.",
    button: "Choisir un nouveau mot de passe",
    about: "Ce message concerne votre compte dans l'organisation {organization}.",
  },
  es: {
    subject: "Restablezca su contraseña de Portal Launcher",
    hello: "Hola {name}:",
    body: "Alguien (probablemente usted) pidió restablecer la contraseña de su cuenta. Abra " +
      "este enlace en los próximos {minutes} minutos para elegir una contraseña nueva:",
    ignore: "Si no lo pidió, ignore este mensaje: su contraseña no cambia.",
    button: "Elegir una contraseña nueva",
    about: "Este mensaje se refiere a su cuenta en la organización {organization}.",
  },
  de: {
    subject: "Ihr Portal-Launcher-Passwort zurücksetzen",
    hello: "Hallo {name},",
    body: "Jemand (wahrscheinlich Sie) hat verlangt, das Passwort Ihres Kontos zurückzusetzen. " +
      "Öffnen Sie diesen Link innerhalb von {minutes} Minuten, um ein neues Passwort zu wählen:",
    ignore: "Wenn Sie das nicht verlangt haben, ignorieren Sie diese Nachricht: Ihr Passwort " +
      "bleibt unverändert.",
    button: "Neues Passwort wählen",
    about: "Diese Nachricht betrifft Ihr Konto in der Organisation {organization}.",
  },
} as const;

const CHANGED = {
  en: {
    subject: "Your Portal Launcher password was changed",
    body: "The password of your account was changed just now, and every other sign-in was ended.",
    warn: "If it was not you, ask your administrator to secure your account at once.",
  },
  fr: {
    subject: "Votre mot de passe Portal Launcher a été modifié",
    body: "Le mot de passe de votre compte vient d'être modifié, et toutes les autres connexions " +
      "ont été fermées.",
    warn: "Si ce n'était pas vous, demandez tout de suite à votre administrateur de sécuriser " +
      "votre compte.",
  },
  es: {
    subject: "Se cambió su contraseña de Portal Launcher",
    body: "La contraseña de su cuenta se acaba de cambiar y se cerraron todas las demás sesiones.",
    warn: "Si no fue usted, pida enseguida a su administrador que proteja su cuenta.",
  },
  de: {
    subject: "Ihr Portal-Launcher-Passwort wurde geändert",
    body: "Das Passwort Ihres Kontos wurde soeben geändert, und alle anderen Anmeldungen wurden " +
      "beendet.",
    warn: "Wenn Sie das nicht waren, bitten Sie sofort Ihren Administrator, Ihr Konto zu sichern.",
  },
} as const;

/** The mail language of a locale (fr-CA gives fr; unknown gives en). */
export function mailLanguage(locale: string | null): Language {
  const lang = (locale ?? "en").split(/[-_]/)[0].toLowerCase();
  return lang === "fr" || lang === "es" || lang === "de" ? lang : "en";
}

export function escape(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

export function fill(text: string, vars: Record<string, string>): string {
  return text.replace(/\{(\w+)\}/g, (_, k) => vars[k] ?? "");
}

export function html(lang: Language, paragraphs: string[]): string {
  return `<!doctype html><html lang="${lang}"><body style="font-family:system-ui,sans-serif">` +
    paragraphs.join("") + "</body></html>";
}

/**
 * The reset-link message. With `organization` (an agent's, when one e-mail has accounts in
 * several) the subject and a line name the organization whose account the link resets.
 */
export function resetMail(
  to: { email: string; firstName: string; locale: string | null },
  link: string,
  minutes: number,
  organization?: string,
): Mail {
  const lang = mailLanguage(to.locale);
  const t = RESET[lang];
  const vars = { name: to.firstName || to.email, minutes: String(minutes) };
  const about = organization ? [fill(t.about, { organization })] : [];
  return {
    recipient: to.email,
    subject: organization ? `${t.subject} (${organization})` : t.subject,
    text: [fill(t.hello, vars), "", ...about, fill(t.body, vars), link, "", t.ignore, ""]
      .join("\n"),
    html: html(lang, [
      `<p>${escape(fill(t.hello, vars))}</p>`,
      ...about.map((line) => `<p>${escape(line)}</p>`),
      `<p>${escape(fill(t.body, vars))}</p>`,
      `<p><a href="${escape(link)}">${escape(t.button)}</a></p>`,
      `<p>${escape(link)}</p>`,
      `<p>${escape(t.ignore)}</p>`,
    ]),
  };
}

/** The "your password was changed" notification. */
export function passwordChangedMail(
  to: { email: string; firstName: string; locale: string | null },
): Mail {
  const lang = mailLanguage(to.locale);
  const t = CHANGED[lang];
  const hello = fill(RESET[lang].hello, { name: to.firstName || to.email });
  return {
    recipient: to.email,
    subject: t.subject,
    text: [hello, "", t.body, t.warn, ""].join("\n"),
    html: html(lang, [
      `<p>${escape(hello)}</p>`,
      `<p>${escape(t.body)}</p>`,
      `<p>${escape(t.warn)}</p>`,
    ]),
  };
}
