/** Startup data: the configured administrator and API client, and demo data on a first start. */
import type { Tx } from "../db/mod.ts";
import { findClient, upsertStandaloneClient } from "../db/queries/api_clients.ts";
import { findAdminByEmail, upsertAdmin } from "../db/queries/users.ts";
import { hashPassword, hashSecret, verifyPassword, verifySecret } from "./crypto/hashing.ts";
import { generateToken } from "./crypto/random_token.ts";
import type { Deps } from "./deps.ts";
import { SCOPES } from "./oauth/scopes.ts";
import { createApp } from "./admin/apps.ts";
import { addCategory, addPath } from "./admin/guided_paths.ts";
import { addCustomField } from "./admin/settings.ts";

/** What a first start created, printed once. */
export interface DemoCredentials {
  adminEmail: string;
  adminPassword: string;
  appName: string;
  apiKey: string;
  launchUrl: string;
  clientId: string;
  clientSecret: string;
  /** The demo app's callback signing secret (whsec_...). */
  callbackSecret: string;
  /** Whether the demo app calls the mock CRM back (CALLBACK_ALLOW_PRIVATE_NETWORKS). */
  callbacks: boolean;
  /** The mock CRM's page (`deno task demo` on DEMO_PORT), where the demo app may be framed. */
  demoUrl: string;
  /** The demo app's Try launch page in the admin screens. */
  tryLaunchUrl: string;
}

/** The origins of the mock CRM on `port`: the demo app's allowed frame ancestors. */
export function demoOrigins(port: number): string[] {
  return [`http://localhost:${port}`, `http://127.0.0.1:${port}`];
}

/** Creates or updates the administrator of ADMIN_EMAIL/ADMIN_PASSWORD. */
export async function ensureAdmin(tx: Tx, email: string, password: string): Promise<void> {
  const existing = await findAdminByEmail(tx, email);
  if (
    existing?.passwordHash &&
    await verifyPassword(password, existing.passwordHash)
  ) return;
  await upsertAdmin(tx, {
    email,
    passwordHash: await hashPassword(password),
    firstName: "Admin",
    lastName: "",
  });
}

/** Creates or updates the BOOTSTRAP_CLIENT_ID client with every scope, admin included. */
export async function ensureBootstrapClient(tx: Tx, clientId: string, secret: string) {
  const existing = await findClient(tx, clientId);
  if (existing?.appId) {
    throw new Error(
      `BOOTSTRAP_CLIENT_ID ${clientId} is already the client id of an app; choose another`,
    );
  }
  if (
    existing && existing.scopes.length === SCOPES.length &&
    verifySecret(secret, existing.secretHash)
  ) return;
  await upsertStandaloneClient(tx, {
    clientId,
    secretHash: hashSecret(secret),
    scopes: [...SCOPES],
  });
}

/** True when the database holds no app and no user: a first start. */
async function isEmpty(tx: Tx): Promise<boolean> {
  const [row] = await tx<{ apps: number; users: number }[]>`
    select (select count(*) from apps) as apps, (select count(*) from users) as users
  `;
  return row.apps === 0 && row.users === 0;
}

/**
 * On a first start with nothing configured, creates demo data: an administrator, the app `demo`
 * (its client may also use the admin API), a custom field and a catalog in English and French.
 */
export async function createDemoData(deps: Deps): Promise<DemoCredentials | null> {
  if (!(await isEmpty(deps.sql))) return null;
  const adminEmail = "admin@example.com";
  const adminPassword = generateToken(16);
  await ensureAdmin(deps.sql, adminEmail, adminPassword);
  await addCustomField(deps, { name: "priority", label: "Priority" });
  const app = await createApp(deps, deps.config.publicUrl, {
    appName: "demo",
    name: "Demo CRM",
    authType: "signed_request",
    // The mock CRM (`deno task demo`) on DEMO_PORT frames it and receives its callbacks (when
    // the operator allows localhost).
    frameAncestors: demoOrigins(deps.config.demoPort),
    clientScopes: [...SCOPES],
    ...(deps.config.callbackAllowPrivateNetworks
      ? { callbackUrl: `${demoOrigins(deps.config.demoPort)[0]}/callbacks` }
      : {}),
  });
  const printers = await addCategory(deps, { name: "Printers" });
  const network = await addCategory(deps, { name: "Network" });
  const step = (title: string, body: string) => ({ title, body });
  await addPath(deps, {
    title: "Printer is offline",
    categoryUid: printers.uid,
    tags: ["printer", "offline"],
    published: true,
    steps: [
      step("Check the cable", "Make sure the printer is plugged in and switched on."),
      step("Restart the spooler", "Open Services and restart Print Spooler."),
    ],
    translations: {
      fr: {
        title: "L'imprimante est hors ligne",
        steps: [
          step("Vérifier le câble", "Assurez-vous que l'imprimante est branchée et allumée."),
          step("Redémarrer le spouleur", "Ouvrez Services et redémarrez le spouleur."),
        ],
      },
    },
  });
  await addPath(deps, {
    title: "Paper jam",
    categoryUid: printers.uid,
    tags: ["printer", "paper"],
    published: true,
    steps: [step("Open the tray", "Remove the jammed sheet gently.")],
    translations: {
      fr: {
        title: "Bourrage papier",
        steps: [step("Ouvrir le bac", "Retirez doucement la feuille coincée.")],
      },
    },
  });
  await addPath(deps, {
    title: "No internet connection",
    categoryUid: network.uid,
    tags: ["network", "wifi"],
    published: true,
    steps: [step("Restart the router", "Unplug the router for 30 seconds.")],
    translations: {
      fr: {
        title: "Pas de connexion Internet",
        steps: [step("Redémarrer le routeur", "Débranchez le routeur pendant 30 secondes.")],
      },
    },
  });
  return {
    adminEmail,
    adminPassword,
    appName: app.appName,
    apiKey: app.apiKey!,
    launchUrl: app.launchUrl,
    clientId: app.clientId,
    clientSecret: app.clientSecret,
    callbackSecret: app.callbackSecret!,
    callbacks: app.callbackUrl !== null,
    demoUrl: `${demoOrigins(deps.config.demoPort)[0]}/`,
    tryLaunchUrl: `${deps.config.publicUrl}/admin/apps/${app.appName}/try-launch`,
  };
}
