-- Portal Launcher: the lost-password function (spec §5.4 step 2.4) and the e-mail outbox.

-- Reset links: random tokens stored as SHA-256 hashes, single use, bound to the account and to
-- its password hash when issued (a password change voids every older link).
create table password_resets (
  token_hash text primary key,
  user_id bigint not null references users (id) on delete cascade,
  password_fingerprint text not null,
  expires_at timestamptz not null,
  used_at timestamptz,
  created_at timestamptz not null default now()
);
create index password_resets_user_id_idx on password_resets (user_id);
create index password_resets_expires_at_idx on password_resets (expires_at);

-- Mail waiting to go out over SMTP, sent by a worker in every process (never in the request).
-- The bodies are blanked once sent: a reset link does not stay readable in the database.
create table mail_outbox (
  id bigint generated always as identity primary key,
  recipient text not null,
  subject text not null,
  text_body text not null,
  html_body text not null,
  status text not null default 'pending' check (status in ('pending', 'sending', 'sent', 'failed')),
  attempts integer not null default 0,
  next_attempt_at timestamptz not null default now(),
  lease_until timestamptz,
  last_error text,
  created_at timestamptz not null default now(),
  sent_at timestamptz
);
create index mail_outbox_due_idx on mail_outbox (next_attempt_at, id)
  where status in ('pending', 'sending');
