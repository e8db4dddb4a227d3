/** The words of the screen-sharing pages (customer's page, code entry, agent's view): en, fr, es, de. */

const en = {
  title: "Screen sharing",
  asks: "{agent} of {organization} asks to see your screen to help you.",
  what: "If you agree, {agent} sees the screen, window or tab you choose, live, until you stop. " +
    "{agent} can point at things on it and chat with you, but cannot click or type on your " +
    "computer. Nothing is recorded.",
  consent: "I agree to share my screen with {agent}",
  share: "Share my screen",
  camera: "Also show my camera",
  stop: "Stop sharing",
  end: "End",
  chat: "Chat",
  message: "Message",
  send: "Send",
  preview: "What you are sharing",
  you: "You",
  waiting: "Waiting for the other side to connect…",
  connected: "Connected",
  sharingNow: "You are sharing your screen.",
  ended: "This screen-sharing session has ended.",
  expired: "This link has expired. Ask for a new one.",
  joined: "This link is already open on another device.",
  failed: "The connection failed.",
  noRelay: "No TURN relay could be reached (check TURN_URLS and TURN_SECRET).",
  codeTitle: "Join screen sharing",
  codeLabel: "Code (9 digits)",
  codeHint: "The code the support agent read out to you.",
  join: "Continue",
  codeWrong: "This code does not work. Check it, or ask for a new one.",
  codeWait: "Too many tries. Wait {seconds} seconds and try again.",
  agentTitle: "Screen sharing",
  invite: "Invite the customer",
  link: "Link",
  code: "Code",
  copy: "Copy link",
  expires: "Works until",
  mail: "E-mail the link to the customer",
  mailed: "The invitation was e-mailed to {email}.",
  newInvite: "New invitation",
  status: "Status",
  fit: "Fit to window",
  actual: "Actual size",
  noInvite: "No invitation is open for this session.",
  pointerHint: "Click the picture to point: the customer sees the pointer.",
  statusInvited: "Invited",
  statusJoined: "Customer joined",
  statusSharing: "Sharing",
  statusEnded: "Ended",
  statusExpired: "Expired",
};

type Strings = typeof en;
/** A word of the screen-sharing pages. */
export type RemoteKey = keyof Strings;

const fr: Strings = {
  title: "Partage d'écran",
  asks: "{agent} ({organization}) demande à voir votre écran pour vous aider.",
  what: "Si vous acceptez, {agent} voit en direct l'écran, la fenêtre ou l'onglet que vous " +
    "choisissez, jusqu'à ce que vous arrêtiez. {agent} peut vous montrer des éléments et " +
    "discuter avec vous, mais ne peut ni cliquer ni taper sur votre ordinateur. Rien n'est " +
    "enregistré.",
  consent: "J'accepte de partager mon écran avec {agent}",
  share: "Partager mon écran",
  camera: "Montrer aussi ma caméra",
  stop: "Arrêter le partage",
  end: "Terminer",
  chat: "Discussion",
  message: "Message",
  send: "Envoyer",
  preview: "Ce que vous partagez",
  you: "Vous",
  waiting: "En attente de l'autre partie…",
  connected: "Connecté",
  sharingNow: "Vous partagez votre écran.",
  ended: "Ce partage d'écran est terminé.",
  expired: "Ce lien a expiré. Demandez-en un nouveau.",
  joined: "Ce lien est déjà ouvert sur un autre appareil.",
  failed: "La connexion a échoué.",
  noRelay: "Aucun relais TURN n'a pu être joint (vérifiez TURN_URLS et TURN_SECRET).",
  codeTitle: "Rejoindre le partage d'écran",
  codeLabel: "Code (9 chiffres)",
  codeHint: "Le code que l'agent vous a communiqué.",
  join: "Continuer",
  codeWrong: "Ce code ne fonctionne pas. Vérifiez-le ou demandez-en un nouveau.",
  codeWait: "Trop d'essais. Attendez {seconds} secondes puis réessayez.",
  agentTitle: "Partage d'écran",
  invite: "Inviter le client",
  link: "Lien",
  code: "Code",
  copy: "Copier le lien",
  expires: "Valable jusqu'à",
  mail: "Envoyer le lien au client par e-mail",
  mailed: "L'invitation a été envoyée à {email}.",
  newInvite: "Nouvelle invitation",
  status: "État",
  fit: "Ajuster à la fenêtre",
  actual: "Taille réelle",
  noInvite: "Aucune invitation n'est ouverte pour cette session.",
  pointerHint: "Cliquez sur l'image pour pointer : le client voit le pointeur.",
  statusInvited: "Invité",
  statusJoined: "Client connecté",
  statusSharing: "Partage en cours",
  statusEnded: "Terminé",
  statusExpired: "Expiré",
};

const es: Strings = {
  title: "Compartir pantalla",
  asks: "{agent} ({organization}) pide ver su pantalla para ayudarle.",
  what: "Si acepta, {agent} ve en directo la pantalla, ventana o pestaña que elija, hasta que " +
    "pare. {agent} puede señalar cosas y chatear con usted, pero no puede hacer clic ni " +
    "escribir en su ordenador. No se graba nada.",
  consent: "Acepto compartir mi pantalla con {agent}",
  share: "Compartir mi pantalla",
  camera: "Mostrar también mi cámara",
  stop: "Dejar de compartir",
  end: "Terminar",
  chat: "Chat",
  message: "Mensaje",
  send: "Enviar",
  preview: "Lo que está compartiendo",
  you: "Usted",
  waiting: "Esperando a que se conecte la otra parte…",
  connected: "Conectado",
  sharingNow: "Está compartiendo su pantalla.",
  ended: "Esta sesión de pantalla compartida ha terminado.",
  expired: "Este enlace ha caducado. Pida uno nuevo.",
  joined: "Este enlace ya está abierto en otro dispositivo.",
  failed: "La conexión ha fallado.",
  noRelay: "No se pudo alcanzar ningún relé TURN (revise TURN_URLS y TURN_SECRET).",
  codeTitle: "Unirse a la pantalla compartida",
  codeLabel: "Código (9 cifras)",
  codeHint: "El código que le dictó el agente.",
  join: "Continuar",
  codeWrong: "Este código no funciona. Revíselo o pida uno nuevo.",
  codeWait: "Demasiados intentos. Espere {seconds} segundos y vuelva a intentarlo.",
  agentTitle: "Compartir pantalla",
  invite: "Invitar al cliente",
  link: "Enlace",
  code: "Código",
  copy: "Copiar enlace",
  expires: "Válido hasta",
  mail: "Enviar el enlace al cliente por correo",
  mailed: "La invitación se envió a {email}.",
  newInvite: "Nueva invitación",
  status: "Estado",
  fit: "Ajustar a la ventana",
  actual: "Tamaño real",
  noInvite: "No hay ninguna invitación abierta para esta sesión.",
  pointerHint: "Haga clic en la imagen para señalar: el cliente ve el puntero.",
  statusInvited: "Invitado",
  statusJoined: "Cliente conectado",
  statusSharing: "Compartiendo",
  statusEnded: "Terminada",
  statusExpired: "Caducada",
};

const de: Strings = {
  title: "Bildschirmfreigabe",
  asks: "{agent} ({organization}) möchte Ihren Bildschirm sehen, um Ihnen zu helfen.",
  what: "Wenn Sie zustimmen, sieht {agent} live den Bildschirm, das Fenster oder den Tab, den " +
    "Sie wählen, bis Sie aufhören. {agent} kann auf Dinge zeigen und mit Ihnen chatten, aber " +
    "nicht auf Ihrem Computer klicken oder tippen. Es wird nichts aufgezeichnet.",
  consent: "Ich bin einverstanden, meinen Bildschirm mit {agent} zu teilen",
  share: "Bildschirm teilen",
  camera: "Auch meine Kamera zeigen",
  stop: "Freigabe beenden",
  end: "Beenden",
  chat: "Chat",
  message: "Nachricht",
  send: "Senden",
  preview: "Was Sie teilen",
  you: "Sie",
  waiting: "Warten auf die andere Seite…",
  connected: "Verbunden",
  sharingNow: "Sie teilen Ihren Bildschirm.",
  ended: "Diese Bildschirmfreigabe ist beendet.",
  expired: "Dieser Link ist abgelaufen. Bitten Sie um einen neuen.",
  joined: "Dieser Link ist bereits auf einem anderen Gerät geöffnet.",
  failed: "Die Verbindung ist fehlgeschlagen.",
  noRelay: "Kein TURN-Relay erreichbar (TURN_URLS und TURN_SECRET prüfen).",
  codeTitle: "Bildschirmfreigabe beitreten",
  codeLabel: "Code (9 Ziffern)",
  codeHint: "Der Code, den Ihnen der Support genannt hat.",
  join: "Weiter",
  codeWrong: "Dieser Code funktioniert nicht. Prüfen Sie ihn oder bitten Sie um einen neuen.",
  codeWait: "Zu viele Versuche. Warten Sie {seconds} Sekunden und versuchen Sie es erneut.",
  agentTitle: "Bildschirmfreigabe",
  invite: "Kunden einladen",
  link: "Link",
  code: "Code",
  copy: "Link kopieren",
  expires: "Gültig bis",
  mail: "Link per E-Mail an den Kunden senden",
  mailed: "Die Einladung wurde an {email} gesendet.",
  newInvite: "Neue Einladung",
  status: "Status",
  fit: "An Fenster anpassen",
  actual: "Originalgröße",
  noInvite: "Für diese Sitzung ist keine Einladung offen.",
  pointerHint: "Klicken Sie ins Bild, um zu zeigen: der Kunde sieht den Zeiger.",
  statusInvited: "Eingeladen",
  statusJoined: "Kunde verbunden",
  statusSharing: "Freigabe läuft",
  statusEnded: "Beendet",
  statusExpired: "Abgelaufen",
};

const catalogs: Record<string, Strings> = { en, fr, es, de };

/** The language of the screen-sharing pages for `preferred` languages (first shipped one, else en). */
export function remoteLanguage(...preferred: (string | null | undefined)[]): string {
  for (const p of preferred) {
    for (const tag of (p ?? "").split(",")) {
      const lang = tag.trim().split(/[-_;]/)[0].toLowerCase();
      // Own keys only: `constructor` is `in` every object.
      if (Object.hasOwn(catalogs, lang)) return lang;
    }
  }
  return "en";
}

/** A translator of the screen-sharing words for `language`. */
export function remoteWords(language: string) {
  const strings = Object.hasOwn(catalogs, language) ? catalogs[language] : en;
  return (key: RemoteKey, vars: Record<string, string> = {}) =>
    strings[key].replace(/\{(\w+)\}/g, (_, k) => vars[k] ?? "");
}

/** A translator. */
export type RT = ReturnType<typeof remoteWords>;
