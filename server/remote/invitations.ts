/**
 * Remote-support invitations and their records (docs/remote.md). An invitation has a join link
 * `{portal_url}/r/<token>` (256 random bits; stored as SHA-256 for the lookup and sealed under
 * SECRET_KEY so the agent's page can show it again) and a 9-digit code for the phone (stored as
 * HMAC-SHA256 under a key derived from SECRET_KEY). What happens to it (invited, joined,
 * consented, sharing started and stopped, ended by whom) is recorded on the remote session, on
 * the session's events and, for `remote.invited`, `remote.started` and `remote.ended`, as CRM
 * callback events in the same transaction.
 */
import {
  claimForDevice,
  insertInvitation,
  recordConsent,
  recordEnd,
  recordSharing,
  type RemoteEnder,
  type RemoteRow,
  remotesOfSession,
} from "../../db/queries/remote.ts";
import { insertSessionEvent, type SessionEventKind } from "../../db/queries/portal.ts";
import { queueMail } from "../mail/queue.ts";
import type { Deps } from "../deps.ts";
import { emitCallbackEvents } from "../callbacks/events.ts";
import { inTransaction, type Write } from "../transaction.ts";
import { sha256 } from "../crypto/hashing.ts";
import { hmacBase64 } from "../crypto/hmac.ts";
import { encodeBase64Url } from "../crypto/base64.ts";
import { randomBytes } from "../crypto/random_token.ts";
import { publicOrigin } from "../http/public_origin.ts";
import { AppError } from "../http/errors.ts";
import { inviteMail } from "./remote_mail.ts";

/** Where the join token and code are sealed (SecretBox contexts). */
const TOKEN_CONTEXT = "remote/token";
const CODE_CONTEXT = "remote/code";

/** What creating an invitation answers (the REST API's 201 body). */
export interface Invitation {
  id: number;
  joinUrl: string;
  code: string;
  expiresAt: string;
  status: "invited";
}

/** A 9-digit code, uniformly drawn. */
export function newCode(): string {
  const limit = 4_294_000_000; // a multiple of 10^9 below 2^32
  const word = new Uint32Array(1);
  do crypto.getRandomValues(word); while (word[0] >= limit);
  return String(word[0] % 1_000_000_000).padStart(9, "0");
}

/** The lookup hash of a join token. */
export function tokenHash(token: string): string {
  return sha256(`remote-join:${token}`);
}

/** The stored hash of a code, under the service's code key. */
export function codeHash(deps: Deps, code: string): Promise<string> {
  return hmacBase64(`remote-code:${code}`, deps.remote.codeKey);
}

/** The join link of a token. */
export function joinUrl(deps: Deps, token: string): string {
  return `${publicOrigin(deps.config)}${deps.config.portalPrefix}/r/${token}`;
}

/** The join link and code of a stored invitation (for the agent's page). */
export async function openInvitation(
  deps: Deps,
  row: Pick<RemoteRow, "tokenSealed" | "codeSealed">,
): Promise<{ joinUrl: string; code: string; token: string }> {
  const token = await deps.secrets.decrypt(row.tokenSealed, TOKEN_CONTEXT);
  const code = await deps.secrets.decrypt(row.codeSealed, CODE_CONTEXT);
  return { joinUrl: joinUrl(deps, token), code, token };
}

/** The session's remote session still open (invited, joined, sharing) for the agent's view. */
export async function openRemoteOf(deps: Deps, sessionId: number, customerEmail: string | null) {
  const open = (await remotesOfSession(deps.sql, sessionId)).find((r) =>
    ["invited", "joined", "sharing"].includes(r.status)
  );
  return open ? { ...open, ...(await openInvitation(deps, open)), customerEmail } : null;
}

/** Records `kind` on the session's events with the remote session's id and `detail`. */
async function record(
  w: Write,
  row: { sessionId: number },
  kind: SessionEventKind,
  agentId: number | null,
  detail: Record<string, unknown>,
): Promise<void> {
  await insertSessionEvent(w.tx, { sessionId: row.sessionId, kind, agentId, detail });
}

/**
 * Creates an invitation for session `sessionId` in write `w` (the caller's transaction): the
 * `remote_invited` event and the `remote.invited` callback with `joinUrl` and `code`.
 */
export async function createInvitation(
  deps: Deps,
  w: Write,
  r: {
    sessionId: number;
    agentId: number | null;
    via: "portal" | "launch" | "api";
    launchId: number | null;
  },
): Promise<Invitation> {
  for (let attempt = 0; attempt < 5; attempt++) {
    const token = encodeBase64Url(randomBytes(32));
    const code = newCode();
    const id = await insertInvitation(w.tx, {
      sessionId: r.sessionId,
      invitedBy: r.agentId,
      invitedVia: r.via,
      launchId: r.launchId,
      tokenHash: tokenHash(token),
      tokenSealed: await deps.secrets.encrypt(token, TOKEN_CONTEXT),
      codeHash: await codeHash(deps, code),
      codeSealed: await deps.secrets.encrypt(code, CODE_CONTEXT),
      ttlMinutes: deps.config.remote.inviteTtlMinutes,
    });
    if (id === null) continue; // the code names another live invitation: draw again
    const expiresAt = new Date(Date.now() + deps.config.remote.inviteTtlMinutes * 60_000)
      .toISOString();
    const url = joinUrl(deps, token);
    await record(w, r, "remote_invited", r.agentId, { remoteId: id, via: r.via });
    await emitCallbackEvents(w, r.sessionId, [{
      type: "remote.invited",
      extra: { remoteId: id, joinUrl: url, code, expiresAt },
    }]);
    return { id, joinUrl: url, code, expiresAt, status: "invited" };
  }
  throw new AppError(503, "remote_code_unavailable", "No free invitation code; try again");
}

/** Creates an invitation in its own transaction. */
export function invite(
  deps: Deps,
  r: {
    sessionId: number;
    agentId: number | null;
    via: "portal" | "launch" | "api";
    launchId: number | null;
  },
): Promise<Invitation> {
  return inTransaction(deps, (w) => createInvitation(deps, w, r));
}

/** Mails the join link and code to `email` in `language`. */
export async function mailInvitation(
  deps: Deps,
  row: RemoteRow,
  to: { email: string; name: string; language: string },
): Promise<void> {
  const { joinUrl, code } = await openInvitation(deps, row);
  await inTransaction(deps, async (w) => {
    await queueMail(
      w,
      inviteMail(to, { joinUrl, code, agent: row.agentName, expiresAt: row.expiresAt }),
    );
  });
}

/** The customer's device joins (first device only): false when another device holds it. */
export async function joinAsDevice(
  deps: Deps,
  row: RemoteRow,
  deviceHash: string,
): Promise<boolean> {
  return await inTransaction(deps, async (w) => {
    const claimed = await claimForDevice(w.tx, row.id, deviceHash);
    if (claimed.joinedNow) await record(w, row, "remote_joined", null, { remoteId: row.id });
    return claimed.ok;
  });
}

/** The customer ticked the consent box; false when it was recorded before. */
export async function consent(deps: Deps, row: RemoteRow): Promise<boolean> {
  return await inTransaction(deps, async (w) => {
    if (!(await recordConsent(w.tx, row.id))) return false;
    await record(w, row, "remote_consented", null, { remoteId: row.id });
    return true;
  });
}

/** Sharing started or stopped (the first start emits `remote.started`). False: refused. */
export async function sharing(deps: Deps, row: RemoteRow, on: boolean): Promise<boolean> {
  return await inTransaction(deps, async (w) => {
    const changed = await recordSharing(w.tx, row.id, on);
    if (!changed) return false;
    await record(w, row, on ? "remote_sharing_started" : "remote_sharing_stopped", null, {
      remoteId: row.id,
      ...(on ? {} : { seconds: changed.seconds }),
    });
    if (on && changed.first) {
      await emitCallbackEvents(w, row.sessionId, [{
        type: "remote.started",
        extra: { remoteId: row.id },
      }]);
    }
    return true;
  });
}

/** Ends a remote session (once): the event and the `remote.ended` callback with durations. */
export async function endRemote(
  deps: Deps,
  row: Pick<RemoteRow, "id" | "sessionId">,
  by: RemoteEnder,
  agentId: number | null,
): Promise<boolean> {
  return await inTransaction(deps, async (w) => {
    const ended = await recordEnd(w.tx, row.id, by);
    if (!ended) return false;
    const facts = {
      remoteId: row.id,
      endedBy: by,
      durationSeconds: ended.durationSeconds,
      sharingSeconds: ended.sharingSeconds,
    };
    await record(w, row, "remote_ended", agentId, facts);
    await emitCallbackEvents(w, row.sessionId, [{ type: "remote.ended", extra: facts }]);
    return true;
  });
}
