-- Portal Launcher: what agents do on the session screen, recorded on the session.
create table session_events (
  id bigint generated always as identity primary key,
  session_id bigint not null references sessions (id) on delete cascade,
  kind text not null check (kind in ('status_changed', 'assigned', 'transferred',
    'remote_requested', 'visual_support_started')),
  agent_id bigint references users (id) on delete set null,
  detail jsonb not null default '{}',
  created_at timestamptz not null default now()
);
create index session_events_session_id_idx on session_events (session_id, id);

-- Recently Used paths: an agent's latest runs.
create index path_runs_agent_id_idx on path_runs (agent_id, ran_at desc);
