/**
 * Screen-sharing routes under `{portal_url}` (docs/remote.md): the customer's join link and code
 * entry (public: the token or code is the credential), both sides' signaling sockets and the ICE
 * configuration. Mounted after the portal's guard, which sets `agent` on the agent's routes.
 */
import { Hono } from "hono";
import type { Context } from "hono";
import { upgradeWebSocket } from "hono/deno";
import { getCookie, setCookie } from "hono/cookie";
import type { Deps } from "../deps.ts";
import type { PortalEnv } from "../portal/auth.ts";
import { currentAgent } from "../portal/auth.ts";
import { csrfMatches } from "../auth/logins.ts";
import { agentReachesSession } from "../../db/queries/portal.ts";
import {
  invitedByCodeHash,
  lastSignalSeq,
  remoteById,
  remoteByTokenHash,
  type RemoteRow,
} from "../../db/queries/remote.ts";
import { sha256 } from "../crypto/hashing.ts";
import { encodeBase64Url } from "../crypto/base64.ts";
import { randomBytes } from "../crypto/random_token.ts";
import { clientAddress } from "../http/client_address.ts";
import { publicOrigin, requestOrigin } from "../http/public_origin.ts";
import { AppError } from "../http/errors.ts";
import {
  type ReservedSignIn,
  reserveSignIn,
  signInFaulted,
  signInSucceeded,
} from "../auth/sign_in_limiter.ts";
import { codeHash, joinAsDevice, openInvitation, tokenHash } from "./invitations.ts";
import { iceConfig } from "./ice.ts";
import { signalingEvents } from "./signaling.ts";
import { codePage, customerPage, linkStatePage } from "./remote_pages.tsx";
import { remoteLanguage, remoteWords } from "./remote_i18n.ts";

/** A join token in a path: 43 Base64url characters (256 bits). */
export const JOIN_TOKEN = ":token{[A-Za-z0-9_-]{43}}";
/** The cookie naming the customer's device (one device per invitation). */
export const DEVICE_COOKIE = "remote_device";
/** Code tries per (code, address) and per address in the window, like sign-in. */
export const CODE_LIMITS = { perAccount: 5, perAddress: 20, windowMs: 15 * 60_000 };

/** Failed code tries of the whole service in the window (all addresses): 10^9 codes stay unguessable. */
export const CODE_GLOBAL_LIMITS = { perAccount: 500, perAddress: 500, windowMs: 15 * 60_000 };

/**
 * Reserves a code try per (code, address), per address and across the service; answers the
 * reservations to settle, or how long to wait.
 */
async function reserveCodeTry(
  deps: Deps,
  digits: string,
  address: string,
): Promise<{ tries: ReservedSignIn[] } | { waitMs: number }> {
  const own = await reserveSignIn(
    deps.sql,
    CODE_LIMITS,
    `remote-code:${digits.slice(0, 9)}`,
    address,
  );
  if (!own.reserved) return { waitMs: own.waitMs };
  const all = await reserveSignIn(deps.sql, CODE_GLOBAL_LIMITS, "remote-code:*", "*");
  if (!all.reserved) {
    await signInFaulted(deps.sql, own.reserved);
    return { waitMs: all.waitMs };
  }
  return { tries: [own.reserved, all.reserved] };
}

/** True when the socket's Origin is this service's (no other site may open a socket). */
function sameOrigin(deps: Deps, c: Context): boolean {
  const origin = c.req.header("Origin");
  if (!origin) return false;
  const scheme = new URL(deps.config.publicUrl).protocol;
  const host = c.req.header("Host");
  return origin === publicOrigin(deps.config) || origin === requestOrigin(deps.config, c) ||
    (!deps.config.trustProxy && !!host && origin === `${scheme}//${host}`);
}

/** The `after` of a reconnecting socket, else the remote session's last message position. */
async function startAfter(deps: Deps, c: Context, remoteId: number): Promise<number> {
  const after = c.req.query("after");
  if (after !== undefined && /^\d{1,15}$/.test(after)) return Number(after);
  return await lastSignalSeq(deps.sql, remoteId);
}

function deviceHash(c: Context): string | null {
  const device = getCookie(c, DEVICE_COOKIE);
  return device && /^[A-Za-z0-9_-]{22,64}$/.test(device) ? sha256(`remote-device:${device}`) : null;
}

function language(c: Context): string {
  return remoteLanguage(c.req.header("Accept-Language"));
}

/**
 * A WebSocket opening handshake (RFC 6455 §4.2.1), checked before anything is done for it: 426
 * `websocket_required` without `Upgrade: websocket`, 400 `websocket_handshake_invalid` without
 * `Connection: Upgrade`, version 13 or a 16-byte `Sec-WebSocket-Key` (the runtime would refuse it
 * only at the upgrade, after the device is bound to the link).
 */
function requireWebSocketHandshake(c: { req: { header(name: string): string | undefined } }) {
  if (c.req.header("Upgrade")?.toLowerCase() !== "websocket") {
    throw new AppError(426, "websocket_required", "Open this URL as a WebSocket");
  }
  const connection = (c.req.header("Connection") ?? "").toLowerCase().split(",");
  const key = c.req.header("Sec-WebSocket-Key") ?? "";
  if (
    !connection.some((token) => token.trim() === "upgrade") ||
    c.req.header("Sec-WebSocket-Version") !== "13" ||
    !/^[A-Za-z0-9+/]{21}[AQgw]==$/.test(key)
  ) {
    throw new AppError(
      400,
      "websocket_handshake_invalid",
      "Not a WebSocket handshake: it needs Connection: Upgrade, Sec-WebSocket-Version: 13 and " +
        "a Sec-WebSocket-Key of 16 bytes in Base64 (a browser's WebSocket sends them)",
    );
  }
}

/** The screen-sharing routes of the portal. */
export function remoteRoutes(deps: Deps): Hono<PortalEnv> {
  const app = new Hono<PortalEnv>();
  const prefix = deps.config.portalPrefix;

  async function byToken(token: string): Promise<RemoteRow | null> {
    return await remoteByTokenHash(deps.sql, tokenHash(token));
  }

  /** The agent's remote session `rid`, when the agent reaches its session. */
  async function agentRemote(c: Context<PortalEnv>, rid: number): Promise<RemoteRow> {
    const agent = c.get("agent");
    const row = await remoteById(deps.sql, rid);
    if (
      !row ||
      !(await agentReachesSession(deps.sql, { agentId: agent.userId, sessionId: row.sessionId }))
    ) {
      throw new AppError(404, "remote_not_found", `Remote session ${rid} not found`);
    }
    return row;
  }

  // ICE servers for either side: the agent's login, or the customer's join token.
  app.get("/remote/ice", async (c) => {
    c.header("Cache-Control", "no-store");
    const token = c.req.query("token");
    if (token) {
      const row = /^[A-Za-z0-9_-]{43}$/.test(token) ? await byToken(token) : null;
      if (!row || row.status === "ended" || row.status === "expired") {
        throw new AppError(404, "remote_not_found", "No such screen-sharing link, or it ended");
      }
      return c.json(await iceConfig(deps.config.remote, `customer-${row.id}`));
    }
    const agent = await currentAgent(deps, c as unknown as Context);
    if (!agent) throw new AppError(401, "login_required", "Sign in to the portal first");
    return c.json(await iceConfig(deps.config.remote, `agent-${agent.userId}`));
  });

  app.get(
    "/remote/:rid{[1-9][0-9]{0,14}}/ws",
    async (c, next) => {
      const agent = c.get("agent");
      requireWebSocketHandshake(c);
      if (!sameOrigin(deps, c)) throw new AppError(403, "origin_refused", "Cross-origin socket");
      if (!csrfMatches(agent, c.req.query("csrf"))) {
        throw new AppError(403, "csrf_refused", "The page's CSRF token is missing or stale");
      }
      const row = await agentRemote(c, Number(c.req.param("rid")));
      if (row.status === "ended" || row.status === "expired") {
        throw new AppError(410, "remote_ended", "This screen-sharing session has ended");
      }
      c.set("remote" as never, row as never);
      await next();
    },
    upgradeWebSocket(async (c) => {
      const row = c.get("remote" as never) as RemoteRow;
      return signalingEvents(deps, {
        side: "agent",
        remote: row,
        after: await startAfter(deps, c, row.id),
        agentId: c.get("agent").userId,
      });
    }),
  );

  // The customer's page: who asks, what is shared, consent, Share, chat.
  app.get(`/r/${JOIN_TOKEN}`, async (c) => {
    c.header("Referrer-Policy", "no-referrer");
    const lang = language(c);
    const row = await byToken(c.req.param("token")!);
    if (!row) return c.html(linkStatePage({ language: lang, prefix, state: "expired" }), 404);
    if (row.status === "ended" || row.status === "expired") {
      return c.html(linkStatePage({ language: lang, prefix, state: row.status }), 410);
    }
    let device = deviceHash(c);
    if (!device) {
      const value = encodeBase64Url(randomBytes(24));
      setCookie(c, DEVICE_COOKIE, value, {
        path: `${prefix}/r`,
        httpOnly: true,
        secure: true,
        sameSite: "Lax",
        maxAge: 86_400,
      });
      device = sha256(`remote-device:${value}`);
    }
    if (row.deviceHash && row.deviceHash !== device) {
      return c.html(linkStatePage({ language: lang, prefix, state: "joined" }), 409);
    }
    return c.html(customerPage({
      language: lang,
      prefix,
      token: c.req.param("token")!,
      agent: row.agentName,
      organization: row.organizationName,
    }));
  });

  app.get(
    `/r/${JOIN_TOKEN}/ws`,
    async (c, next) => {
      requireWebSocketHandshake(c);
      if (!sameOrigin(deps, c)) throw new AppError(403, "origin_refused", "Cross-origin socket");
      const row = await byToken(c.req.param("token")!);
      if (!row) throw new AppError(404, "remote_not_found", "No such screen-sharing link");
      if (row.status === "ended" || row.status === "expired") {
        throw new AppError(410, "remote_ended", "This screen-sharing link has ended or expired");
      }
      const device = deviceHash(c);
      if (!device || !(await joinAsDevice(deps, row, device))) {
        throw new AppError(409, "remote_already_joined", "This link is open on another device");
      }
      c.set("remote" as never, ((await remoteById(deps.sql, row.id)) ?? row) as never);
      await next();
    },
    upgradeWebSocket(async (c) => {
      const row = c.get("remote" as never) as RemoteRow;
      return signalingEvents(deps, {
        side: "customer",
        remote: row,
        after: await startAfter(deps, c, row.id),
        agentId: null,
      });
    }),
  );

  // The code entry: a 9-digit code read out over the phone leads to its link.
  app.get("/r", (c) => c.html(codePage({ language: language(c), prefix })));

  app.post("/r", async (c) => {
    const lang = language(c);
    const t = remoteWords(lang);
    const form = await c.req.parseBody();
    const typed = typeof form.code === "string" ? form.code.slice(0, 32) : "";
    const digits = typed.replace(/[\s-]/g, "");
    // Not nine digits: no code, so the same answer as a wrong one, without using up a try (a
    // typo costs the customer nothing, and a flood of them cannot fill the service-wide count).
    if (!/^\d{9}$/.test(digits)) {
      return c.html(codePage({ language: lang, prefix, error: t("codeWrong"), code: typed }), 400);
    }
    // reserveSignIn counts it under its rate-limit key (an IPv6 client by its /64).
    const address = clientAddress(deps, c) ?? "unknown";
    const reserved = await reserveCodeTry(deps, digits, address);
    if ("waitMs" in reserved) {
      const seconds = String(Math.ceil(reserved.waitMs / 1000));
      c.header("Retry-After", seconds);
      return c.html(
        codePage({ language: lang, prefix, error: t("codeWait", { seconds }), code: typed }),
        429,
      );
    }
    try {
      const row = await invitedByCodeHash(deps.sql, await codeHash(deps, digits));
      // A wrong code and an expired one answer the same; the try stays counted.
      if (!row) {
        return c.html(
          codePage({ language: lang, prefix, error: t("codeWrong"), code: typed }),
          400,
        );
      }
      for (const r of reserved.tries) await signInSucceeded(deps.sql, r);
      const { token } = await openInvitation(deps, row);
      return c.redirect(`${prefix}/r/${token}`, 303);
    } catch (err) {
      for (const r of reserved.tries) await signInFaulted(deps.sql, r);
      throw err;
    }
  });

  return app;
}
