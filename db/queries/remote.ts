/** SQL of remote support (issue 36): invitations, their records and the signaling relay rows. */
import type { Sql, Tx } from "../mod.ts";

/** Who ended a remote session. */
export type RemoteEnder = "agent" | "customer" | "api" | "expiry";

/** A remote session's status as callers see it (an unjoined invitation past expiry: expired). */
export type RemoteStatus = "invited" | "joined" | "sharing" | "ended" | "expired";

/** A remote session row with what the pages and the API show. */
export interface RemoteRow {
  id: number;
  sessionId: number;
  appId: number | null;
  organizationId: number | null;
  invitedBy: number | null;
  invitedVia: "portal" | "launch" | "api";
  launchId: number | null;
  tokenSealed: string;
  codeSealed: string;
  deviceHash: string | null;
  status: RemoteStatus;
  createdAt: Date;
  expiresAt: Date;
  joinedAt: Date | null;
  consentedAt: Date | null;
  firstSharedAt: Date | null;
  sharingSince: Date | null;
  sharingSeconds: number;
  endedAt: Date | null;
  endedBy: RemoteEnder | null;
  /** Seconds from joining to the end (or to now while it lasts); null before joining. */
  durationSeconds: number | null;
  /** The inviting agent's name and the organization's name, for the customer's page. */
  agentName: string;
  organizationName: string;
}

const COLUMNS = (sql: Sql | Tx) =>
  sql`
  r.id, r.session_id, s.app_id, a.organization_id, r.invited_by, r.invited_via, r.launch_id,
  r.token_sealed, r.code_sealed, r.device_hash,
  case when r.status = 'invited' and r.expires_at <= now() then 'expired' else r.status end
    as status,
  r.created_at, r.expires_at, r.joined_at, r.consented_at, r.first_shared_at, r.sharing_since,
  r.sharing_seconds + coalesce(extract(epoch from now() - r.sharing_since)::integer, 0)
    as sharing_seconds,
  r.ended_at, r.ended_by,
  extract(epoch from coalesce(r.ended_at, now()) - r.joined_at)::integer as duration_seconds,
  coalesce(nullif(trim(coalesce(u.first_name, '') || ' ' || coalesce(u.last_name, '')), ''),
    u.email, '') as agent_name,
  coalesce(o.name, '') as organization_name`;

const FROM = (sql: Sql | Tx) =>
  sql`
  remote_sessions r join sessions s on s.id = r.session_id
  left join apps a on a.id = s.app_id
  left join organizations o on o.id = a.organization_id
  left join users u on u.id = coalesce(r.invited_by, s.assignee_id)`;

/** Stores a new invitation; null when its code hash is taken by another live invitation. */
export async function insertInvitation(
  tx: Tx,
  v: {
    sessionId: number;
    invitedBy: number | null;
    invitedVia: "portal" | "launch" | "api";
    launchId: number | null;
    tokenHash: string;
    tokenSealed: string;
    codeHash: string;
    codeSealed: string;
    ttlMinutes: number;
  },
): Promise<number | null> {
  const rows = await tx<{ id: number }[]>`
    insert into remote_sessions (session_id, invited_by, invited_via, launch_id, token_hash,
      token_sealed, code_hash, code_sealed, expires_at)
    values (${v.sessionId}, ${v.invitedBy}, ${v.invitedVia}, ${v.launchId}, ${v.tokenHash},
      ${v.tokenSealed}, ${v.codeHash}, ${v.codeSealed},
      now() + make_interval(mins => ${v.ttlMinutes}))
    on conflict (code_hash) where status = 'invited' do nothing
    returning id
  `;
  return rows[0]?.id ?? null;
}

/** The remote session of id `id`. */
export async function remoteById(sql: Sql | Tx, id: number): Promise<RemoteRow | null> {
  const [row] = await sql<RemoteRow[]>`select ${COLUMNS(sql)} from ${FROM(sql)} where r.id = ${id}`;
  return row ?? null;
}

/** The remote session whose join token hashes to `tokenHash`. */
export async function remoteByTokenHash(sql: Sql, tokenHash: string): Promise<RemoteRow | null> {
  const [row] = await sql<RemoteRow[]>`
    select ${COLUMNS(sql)} from ${FROM(sql)} where r.token_hash = ${tokenHash}
  `;
  return row ?? null;
}

/** The invitation that can still be joined with the code hashing to `codeHash`. */
export async function invitedByCodeHash(sql: Sql, codeHash: string): Promise<RemoteRow | null> {
  const [row] = await sql<RemoteRow[]>`
    select ${COLUMNS(sql)} from ${FROM(sql)}
    where r.code_hash = ${codeHash} and r.status = 'invited' and r.expires_at > now()
  `;
  return row ?? null;
}

/** A session's remote sessions, newest first. */
export async function remotesOfSession(sql: Sql, sessionId: number): Promise<RemoteRow[]> {
  return await sql<RemoteRow[]>`
    select ${COLUMNS(sql)} from ${FROM(sql)} where r.session_id = ${sessionId}
    order by r.id desc limit 100
  `;
}

/**
 * Claims the invitation for the device hashing to `deviceHash`: the first device joins (status
 * joined), the same device may come back, any other is refused. Answers whether it may go on and
 * whether this call joined it.
 */
export async function claimForDevice(
  tx: Tx,
  id: number,
  deviceHash: string,
): Promise<{ ok: boolean; joinedNow: boolean }> {
  const [row] = await tx<{ joinedNow: boolean; deviceHash: string | null }[]>`
    update remote_sessions set
      device_hash = coalesce(device_hash, ${deviceHash}),
      joined_at = coalesce(joined_at, now()),
      status = case when status = 'invited' then 'joined' else status end
    where id = ${id} and status in ('invited', 'joined', 'sharing')
      and (status <> 'invited' or expires_at > now())
      and (device_hash is null or device_hash = ${deviceHash})
    returning (joined_at = now()) as joined_now, device_hash
  `;
  return { ok: !!row, joinedNow: row?.joinedNow ?? false };
}

/** Records the customer's consent (once). False when it was recorded before or it ended. */
export async function recordConsent(tx: Tx, id: number): Promise<boolean> {
  const rows = await tx`
    update remote_sessions set consented_at = now()
    where id = ${id} and consented_at is null and status in ('joined', 'sharing')
    returning 1
  `;
  return rows.length > 0;
}

/**
 * Sharing started (`on`) or stopped. Answers null when nothing changed, else whether this was the
 * first share of the remote session and the seconds of the share that stopped.
 */
export async function recordSharing(
  tx: Tx,
  id: number,
  on: boolean,
): Promise<{ first: boolean; seconds: number } | null> {
  const rows = on
    ? await tx<{ first: boolean; seconds: number }[]>`
      update remote_sessions set sharing_since = now(), status = 'sharing',
        first_shared_at = coalesce(first_shared_at, now())
      where id = ${id} and status = 'joined' and consented_at is not null
      returning (first_shared_at = now()) as first, 0 as seconds
    `
    : await tx<{ first: boolean; seconds: number }[]>`
      update remote_sessions r set sharing_since = null, status = 'joined',
        sharing_seconds = r.sharing_seconds + extract(epoch from now() - r.sharing_since)::integer
      from (select id, sharing_since from remote_sessions where id = ${id}) old
      where r.id = old.id and r.status = 'sharing'
      returning false as first, extract(epoch from now() - old.sharing_since)::integer as seconds
    `;
  return rows[0] ?? null;
}

/** Ends a remote session (once): who ended it; null when it had ended already. */
export async function recordEnd(
  tx: Tx,
  id: number,
  by: RemoteEnder,
): Promise<{ durationSeconds: number; sharingSeconds: number; joined: boolean } | null> {
  const [row] = await tx<{ durationSeconds: number; sharingSeconds: number; joined: boolean }[]>`
    update remote_sessions set status = 'ended', ended_at = now(), ended_by = ${by},
      sharing_seconds = sharing_seconds +
        coalesce(extract(epoch from now() - sharing_since)::integer, 0),
      sharing_since = null
    where id = ${id} and status in ('invited', 'joined', 'sharing')
    returning coalesce(extract(epoch from now() - joined_at)::integer, 0) as duration_seconds,
      sharing_seconds, joined_at is not null as joined
  `;
  return row ?? null;
}

/** What one remote session may store: messages, and bytes of their bodies. */
export interface SignalLimits {
  messages: number;
  bytes: number;
}

/**
 * Stores one signaling message at the next position (seq) of its remote session; answers the
 * seq, or null when the message would take the session past `limits` (nothing is stored). The
 * update of remote_sessions.signal_seq holds that row until this statement commits, so a
 * session's messages commit in seq order (no reader sees seq n + 1 before n). With `notify`,
 * `NOTIFY remote_signal, '<remote id>:<sender>:<origin>'` in the same statement.
 */
export async function insertSignal(
  sql: Sql | Tx,
  v: {
    remoteId: number;
    sender: "agent" | "customer" | "service";
    body: string;
    notify: string | null;
    /** null: stored whatever the session holds (the service's end of it, once). */
    limits: SignalLimits | null;
  },
): Promise<number | null> {
  const within = v.limits === null ? sql`true` : sql`signal_seq < ${v.limits.messages}
    and signal_bytes + octet_length(${v.body}) <= ${v.limits.bytes}`;
  const [row] = await sql<{ seq: number }[]>`
    with n as (
      update remote_sessions
      set signal_seq = signal_seq + 1, signal_bytes = signal_bytes + octet_length(${v.body})
      where id = ${v.remoteId} and ${within}
      returning signal_seq
    ), i as (
      insert into remote_signals (remote_id, seq, sender, body)
      select ${v.remoteId}, n.signal_seq, ${v.sender}, ${v.body} from n
      returning seq
    )
    select i.seq${
    v.notify === null
      ? sql``
      : sql`, pg_notify('remote_signal', ${`${v.remoteId}:${v.sender}:${v.notify}`})`
  } from i
  `;
  if (row) return Number(row.seq);
  const [known] = await sql`select 1 from remote_sessions where id = ${v.remoteId}`;
  if (!known) throw new Error(`no remote session ${v.remoteId}`);
  return null;
}

/** A stored signaling message: its position in its remote session, sender and JSON body. */
export interface SignalRow {
  seq: number;
  sender: "agent" | "customer" | "service";
  body: string;
}

/** The messages of a remote session after position `afterSeq` from anyone but `exceptSender`. */
export async function signalsAfter(
  sql: Sql,
  remoteId: number,
  afterSeq: number,
  exceptSender: string,
): Promise<SignalRow[]> {
  return await sql<SignalRow[]>`
    select seq, sender, body from remote_signals
    where remote_id = ${remoteId} and seq > ${afterSeq} and sender <> ${exceptSender}
    order by seq limit 500
  `;
}

/** The last message position of a remote session (0 when none). */
export async function lastSignalSeq(sql: Sql, remoteId: number): Promise<number> {
  const [row] = await sql<{ seq: number }[]>`
    select signal_seq as seq from remote_sessions where id = ${remoteId}
  `;
  return Number(row?.seq ?? 0);
}

/**
 * Housekeeping: unjoined invitations past expiry become `expired`; signaling messages go an
 * hour after their remote session ended and after a day in any case. Answers what changed.
 */
export async function purgeRemote(sql: Sql): Promise<number> {
  const expired = await sql`
    update remote_sessions set status = 'expired', ended_at = now(), ended_by = 'expiry'
    where status = 'invited' and expires_at <= now()
  `;
  const deleted = await sql`
    delete from remote_signals g using remote_sessions r
    where r.id = g.remote_id
      and ((r.ended_at is not null and r.ended_at < now() - interval '1 hour')
        or g.created_at < now() - interval '1 day')
  `;
  return expired.count + deleted.count;
}
