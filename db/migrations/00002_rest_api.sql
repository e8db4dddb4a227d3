-- Portal Launcher: REST API v1 (sessions, customers, agents, launches) and guided-path runs.

-- A guided path run on a session by an agent (the portal's path runner writes these).
create table path_runs (
  id bigint generated always as identity primary key,
  session_id bigint not null references sessions (id) on delete cascade,
  path_uid uuid not null references paths (uid),
  agent_id bigint references users (id) on delete set null,
  ran_at timestamptz not null default now()
);
create index path_runs_session_id_idx on path_runs (session_id, ran_at, id);

-- Timestamps inside JSON built by SQL, in the same form as the API's other times
-- (ISO 8601, UTC, milliseconds: 2026-11-22T09:30:00.000Z).
create function api_time(t timestamptz) returns text
  language sql immutable strict parallel safe
  return to_char(t at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"');

-- List filters of GET /api/v1/sessions (newest first, keyset on id).
create index sessions_status_id_idx on sessions (status, id desc);
create index launches_outcome_id_idx on launches (outcome, id desc);
create index launches_app_name_id_idx on launches (lower(app_name), id desc);
