-- Remote support (issue 36): a customer shares their screen with the agent over WebRTC. The
-- service never sees media; it keeps the invitation, who joined, consent, when sharing started
-- and stopped, who ended it, and relays the signaling messages (SDP offers and answers, ICE
-- candidates, presence) between the two sides, through this database when they are on
-- different processes.
create table remote_sessions (
  id bigint generated always as identity primary key,
  session_id bigint not null references sessions (id) on delete cascade,
  -- The inviting agent (null: invited through the REST API).
  invited_by bigint references users (id) on delete set null,
  invited_via text not null check (invited_via in ('portal', 'launch', 'api')),
  launch_id bigint,
  -- The join token: SHA-256 for the lookup, sealed under SECRET_KEY so the agent's page can show
  -- the link again. The 9-digit code: HMAC-SHA256 under SECRET_KEY (a leak reveals no code).
  token_hash text not null unique,
  token_sealed text not null,
  code_hash text not null,
  code_sealed text not null,
  -- SHA-256 of the device cookie of the browser that joined (one device per invitation).
  device_hash text,
  status text not null default 'invited'
    check (status in ('invited', 'joined', 'sharing', 'ended', 'expired')),
  created_at timestamptz not null default now(),
  expires_at timestamptz not null,
  joined_at timestamptz,
  consented_at timestamptz,
  first_shared_at timestamptz,
  sharing_since timestamptz,
  sharing_seconds integer not null default 0,
  ended_at timestamptz,
  ended_by text check (ended_by in ('agent', 'customer', 'api', 'expiry')),
  -- The last signaling message's position (remote_signals.seq).
  signal_seq bigint not null default 0
);
create index remote_sessions_session_idx on remote_sessions (session_id, id desc);
-- A code names one invitation that can still be joined.
create unique index remote_sessions_code_idx on remote_sessions (code_hash)
  where status = 'invited';
create index remote_sessions_open_idx on remote_sessions (expires_at)
  where status in ('invited', 'joined', 'sharing');

-- Signaling messages between the two sides of a remote session, in `seq` order: a message takes
-- the next seq of its remote session by updating remote_sessions.signal_seq in its own statement,
-- which holds that row until it commits, so a session's messages commit in seq order and a reader
-- that has seen seq n has seen every message before it. A process that holds one side's socket
-- reads the other side's rows after NOTIFY remote_signal (the remote session's id only: NOTIFY
-- payloads are capped at 8,000 bytes and an offer with a camera is larger). Purged by
-- housekeeping.
create table remote_signals (
  id bigint generated always as identity primary key,
  remote_id bigint not null references remote_sessions (id) on delete cascade,
  seq bigint not null,
  sender text not null check (sender in ('agent', 'customer', 'service')),
  body text not null,
  created_at timestamptz not null default now()
);
create unique index remote_signals_remote_seq_idx on remote_signals (remote_id, seq);
create index remote_signals_created_idx on remote_signals (created_at);

alter table session_events drop constraint session_events_kind_check;
alter table session_events add constraint session_events_kind_check check (kind in (
  'status_changed', 'assigned', 'transferred', 'remote_requested', 'visual_support_started',
  'remote_invited', 'remote_joined', 'remote_consented', 'remote_sharing_started',
  'remote_sharing_stopped', 'remote_ended'));
