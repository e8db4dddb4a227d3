-- Portal Launcher: CRM callbacks. Per-app callback configuration, a transactional outbox of
-- events (written in the same transaction as the session change), and every delivery attempt.

-- Where and how an app is called back. callback_url null: no callbacks for that app.
alter table apps add column callback_url text;
alter table apps add column callback_method text not null default 'POST'
  check (callback_method in ('POST', 'PUT', 'PATCH'));
-- null: every event type.
alter table apps add column callback_events text[];
-- OAuth 2.0 client-credentials token endpoint of the CRM (oauth2_signed_request apps).
alter table apps add column token_url text;
alter table apps add column token_auth_method text not null default 'client_secret_basic'
  check (token_auth_method in ('client_secret_basic', 'client_secret_post'));
-- Standard Webhooks signing secret (whsec_...), sealed; the previous one during a rotation.
alter table apps add column callback_secret_sealed text;
alter table apps add column callback_secret_previous_sealed text;
alter table apps add column callback_secret_previous_expires_at timestamptz;

-- The CRM context a Canvas-style launch carried (instance URL, sealed OAuth token), per session:
-- the crm_standard adapter calls back into that instance with that token.
create table session_crm_contexts (
  session_id bigint primary key references sessions (id) on delete cascade,
  app_id bigint not null references apps (id) on delete cascade,
  instance_url text not null,
  oauth_token_sealed text,
  updated_at timestamptz not null default now()
);

-- The outbox: one row per event, delivered at least once by the workers of every process.
create table callback_events (
  id bigint generated always as identity primary key,
  -- The Standard Webhooks message id: the receiver's idempotency key.
  webhook_id text not null unique,
  app_id bigint not null references apps (id) on delete cascade,
  session_id bigint references sessions (id) on delete set null,
  reference_id text,
  type text not null,
  payload jsonb not null,
  status text not null default 'pending'
    check (status in ('pending', 'delivering', 'delivered', 'failed')),
  -- Attempts of the current round (a redelivery starts a new round).
  attempts integer not null default 0,
  next_attempt_at timestamptz not null default now(),
  -- While delivering: when another worker may take the event over (its worker died).
  lease_until timestamptz,
  last_error text,
  created_at timestamptz not null default now(),
  finished_at timestamptz
);
create index callback_events_due_idx on callback_events (next_attempt_at, id)
  where status in ('pending', 'delivering');
-- Per-session ordering: is an earlier event of this session still on its way?
create index callback_events_session_open_idx on callback_events (session_id, id)
  where status in ('pending', 'delivering');
create index callback_events_app_idx on callback_events (app_id, id desc);
create index callback_events_session_idx on callback_events (session_id, id desc);
create index callback_events_reference_idx on callback_events (reference_id, id desc);
create index callback_events_finished_idx on callback_events (finished_at)
  where finished_at is not null;

create table callback_attempts (
  id bigint generated always as identity primary key,
  event_id bigint not null references callback_events (id) on delete cascade,
  started_at timestamptz not null,
  duration_ms integer not null,
  -- The receiver's HTTP status; null when no answer came (timeout, network, refused URL).
  status_code integer,
  error text,
  -- The first 4 KiB of the response body.
  response_snippet text,
  url text not null
);
create index callback_attempts_event_idx on callback_attempts (event_id, id);
