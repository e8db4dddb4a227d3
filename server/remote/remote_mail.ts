/** The screen-sharing invitation e-mail to a session's customer (en, fr, es, de). */
import type { Mail } from "../../db/queries/mail_outbox.ts";
import { escape, fill, html, mailLanguage } from "../mail/templates.ts";

const INVITE = {
  en: {
    subject: "{agent} asks you to share your screen",
    hello: "Hello {name},",
    body: "{agent} from support would like to see your screen to help you. Open this link " +
      "(it works until {expires} UTC), read what will be shared and choose whether to share:",
    code: "Or open {entry} and type the code {code}.",
    button: "Open screen sharing",
    ignore:
      "Nothing is shared until you agree on that page. If you did not expect this, ignore it.",
  },
  fr: {
    subject: "{agent} vous demande de partager votre écran",
    hello: "Bonjour {name},",
    body: "{agent}, de l'assistance, souhaite voir votre écran pour vous aider. Ouvrez ce lien " +
      "(valable jusqu'à {expires} UTC), lisez ce qui sera partagé et choisissez de partager ou non :",
    code: "Ou ouvrez {entry} et saisissez le code {code}.",
    button: "Ouvrir le partage d'écran",
    ignore: "Rien n'est partagé sans votre accord sur cette page. Si vous n'attendiez pas ce " +
      "message, ignorez-le.",
  },
  es: {
    subject: "{agent} le pide que comparta su pantalla",
    hello: "Hola {name}:",
    body: "{agent}, del servicio de asistencia, quiere ver su pantalla para ayudarle. Abra este " +
      "enlace (válido hasta las {expires} UTC), lea qué se compartirá y elija si compartir:",
    code: "O abra {entry} e introduzca el código {code}.",
    button: "Abrir pantalla compartida",
    ignore: "No se comparte nada sin su acuerdo en esa página. Si no lo esperaba, ignórelo.",
  },
  de: {
    subject: "{agent} bittet Sie, Ihren Bildschirm zu teilen",
    hello: "Hallo {name},",
    body: "{agent} vom Support möchte Ihren Bildschirm sehen, um Ihnen zu helfen. Öffnen Sie " +
      "diesen Link (gültig bis {expires} UTC), lesen Sie, was geteilt wird, und entscheiden Sie:",
    code: "Oder öffnen Sie {entry} und geben Sie den Code {code} ein.",
    button: "Bildschirmfreigabe öffnen",
    ignore: "Ohne Ihre Zustimmung auf dieser Seite wird nichts geteilt. Falls Sie dies nicht " +
      "erwartet haben, ignorieren Sie die Nachricht.",
  },
} as const;

/** The invitation message: link, code and where to type it, expiry. */
export function inviteMail(
  to: { email: string; name: string; language: string },
  i: { joinUrl: string; code: string; agent: string; expiresAt: Date },
): Mail {
  const lang = mailLanguage(to.language);
  const t = INVITE[lang];
  const entry = i.joinUrl.replace(/\/[^/]+$/, "");
  const code = `${i.code.slice(0, 3)} ${i.code.slice(3, 6)} ${i.code.slice(6)}`;
  const vars = {
    name: to.name || to.email,
    agent: i.agent || "Support",
    expires: i.expiresAt.toISOString().slice(11, 16),
    entry,
    code,
  };
  return {
    recipient: to.email,
    subject: fill(t.subject, vars),
    text: [
      fill(t.hello, vars),
      "",
      fill(t.body, vars),
      i.joinUrl,
      "",
      fill(t.code, vars),
      "",
      t.ignore,
      "",
    ].join("\n"),
    html: html(lang, [
      `<p>${escape(fill(t.hello, vars))}</p>`,
      `<p>${escape(fill(t.body, vars))}</p>`,
      `<p><a href="${escape(i.joinUrl)}">${escape(t.button)}</a></p>`,
      `<p>${escape(fill(t.code, vars))}</p>`,
      `<p>${escape(t.ignore)}</p>`,
    ]),
  };
}
