-- Portal Launcher: initial schema (spec §2, §2.4).

-- Authentication configurations (spec §2.1). Secrets are AES-GCM sealed (v1:<base64>).
create table apps (
  id bigint generated always as identity primary key,
  app_name text not null,
  name text not null,
  auth_type text not null check (auth_type in ('signed_request', 'oauth2_signed_request')),
  api_key_sealed text,
  consumer_key text,
  consumer_secret_sealed text,
  implementor text not null default 'default'
    check (implementor in ('default', 'crm_standard', 'crm_v6_5')),
  frame_ancestors text[] not null default '{}',
  enabled boolean not null default true,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  check (auth_type <> 'signed_request' or api_key_sealed is not null),
  check (auth_type <> 'oauth2_signed_request'
    or (consumer_key is not null and consumer_secret_sealed is not null))
);
create unique index apps_app_name_key on apps (lower(app_name));

-- REST API clients (spec §5.2). app_id is null for the bootstrap client.
create table api_clients (
  id bigint generated always as identity primary key,
  client_id text not null unique,
  secret_hash text not null,
  app_id bigint references apps (id) on delete cascade,
  scopes text[] not null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create unique index api_clients_app_id_key on api_clients (app_id) where app_id is not null;

-- Opaque bearer tokens, stored only as SHA-256 hashes.
create table access_tokens (
  token_hash text primary key,
  client_id bigint not null references api_clients (id) on delete cascade,
  scopes text[] not null,
  expires_at timestamptz not null,
  revoked_at timestamptz,
  created_at timestamptz not null default now()
);
create index access_tokens_expires_at_idx on access_tokens (expires_at);

-- Agents and administrators (spec §2.4).
create table users (
  id bigint generated always as identity primary key,
  role text not null check (role in ('agent', 'admin')),
  external_id text,
  email text not null,
  first_name text not null default '',
  last_name text not null default '',
  phone text,
  locale text,
  password_hash text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create unique index users_external_id_key on users (external_id);
create unique index users_email_key on users (lower(email));

create table teams (
  id bigint generated always as identity primary key,
  team_id text not null unique,
  name text not null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);

create table team_members (
  team_id bigint not null references teams (id) on delete cascade,
  user_id bigint not null references users (id) on delete cascade,
  created_at timestamptz not null default now(),
  primary key (team_id, user_id)
);
create index team_members_user_id_idx on team_members (user_id);

-- Customers: identified by e-mail and by external customer id.
create table customers (
  id bigint generated always as identity primary key,
  external_id text,
  email text not null,
  first_name text not null default '',
  last_name text not null default '',
  phone1 text,
  phone2 text,
  other_phone text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create unique index customers_external_id_key on customers (external_id);
create unique index customers_email_key on customers (lower(email));

-- Sessions (spec §2.4, §3).
create table sessions (
  id bigint generated always as identity primary key,
  status text not null default 'open' check (status in ('open', 'closed')),
  external_reference text,
  reference_id text,
  customer_id bigint not null references customers (id),
  assignee_id bigint references users (id) on delete set null,
  app_id bigint references apps (id) on delete set null,
  target text not null default 'standard' check (target in ('standard', 'embedded', 'seesupport')),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index sessions_customer_id_idx on sessions (customer_id);
create index sessions_assignee_id_idx on sessions (assignee_id);
create index sessions_external_reference_idx on sessions (external_reference);
create index sessions_reference_id_idx on sessions (reference_id);
create index sessions_updated_at_idx on sessions (updated_at, id);

create table session_custom_fields (
  session_id bigint not null references sessions (id) on delete cascade,
  name text not null,
  value jsonb not null,
  updated_at timestamptz not null default now(),
  primary key (session_id, name)
);

create table devices (
  id bigint generated always as identity primary key,
  session_id bigint not null references sessions (id) on delete cascade,
  kind text not null check (kind in ('computer', 'mobile')),
  serial text,
  properties jsonb not null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index devices_session_id_idx on devices (session_id);
-- A repeated serial on the same session updates that device instead of adding another.
create unique index devices_session_kind_serial_key on devices (session_id, kind, serial);

-- Field settings (one row): Session Data and Consumer Data tables.
create table field_settings (
  id boolean primary key default true check (id),
  external_session_id boolean not null default true,
  external_customer_id boolean not null default true,
  updated_at timestamptz not null default now()
);
insert into field_settings (id) values (true);

create table custom_field_definitions (
  name text primary key,
  label text not null,
  created_at timestamptz not null default now()
);

-- Guided-path catalog. Deleting is soft, so a launch can say "no longer valid".
create table path_categories (
  uid uuid primary key,
  name text not null,
  deleted_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);

create table paths (
  uid uuid primary key,
  category_uid uuid not null references path_categories (uid),
  title text not null,
  steps jsonb not null default '[]',
  translations jsonb not null default '{}',
  tags text[] not null default '{}',
  published boolean not null default false,
  deleted_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index paths_category_uid_idx on paths (category_uid);
create index paths_tags_idx on paths using gin (tags);

-- One audit record per launch attempt.
create table launches (
  id bigint generated always as identity primary key,
  app_id bigint references apps (id) on delete set null,
  app_name text not null,
  outcome text not null,
  message text,
  agent_id bigint references users (id) on delete set null,
  session_id bigint references sessions (id) on delete set null,
  client_address text,
  user_agent text,
  payload jsonb,
  view jsonb,
  created_at timestamptz not null default now()
);
create index launches_created_at_idx on launches (created_at desc, id desc);
create index launches_app_outcome_idx on launches (app_name, outcome, created_at desc);

-- Portal (agent) and admin logins: random tokens stored as SHA-256 hashes.
create table portal_logins (
  token_hash text primary key,
  user_id bigint not null references users (id) on delete cascade,
  expires_at timestamptz not null,
  created_at timestamptz not null default now()
);
create index portal_logins_user_id_idx on portal_logins (user_id);
