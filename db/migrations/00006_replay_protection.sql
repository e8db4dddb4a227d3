-- Portal Launcher: signed requests that cannot be replayed, and keys that rotate with an overlap.

-- Per-app freshness policy. Apps created from now on default to 'required'; the apps that exist
-- now (built on the seed's template, without issuedAt) get 'optional' so their launches go on.
alter table apps add column replay_protection text not null default 'required'
  check (replay_protection in ('required', 'optional', 'off'));
alter table apps add column max_age_seconds integer not null default 300
  check (max_age_seconds between 30 and 3600);
update apps set replay_protection = 'optional';

-- The previous signing key stays valid until its expiry (a rotation's overlap).
alter table apps add column api_key_previous_sealed text;
alter table apps add column consumer_secret_previous_sealed text;
alter table apps add column previous_key_expires_at timestamptz;
alter table apps add column key_rotated_at timestamptz;

-- Used nonces (or signatures, for requests without a nonce), one per app, until they expire.
create table launch_nonces (
  app_id bigint not null references apps (id) on delete cascade,
  nonce text not null,
  expires_at timestamptz not null,
  primary key (app_id, nonce)
);
create index launch_nonces_expires_at_idx on launch_nonces (expires_at);

-- What verified a launch and how fresh it was; the key a replay is recognised by.
alter table launches add column key_used text check (key_used in ('current', 'previous'));
alter table launches add column protection text
  check (protection in ('protected', 'unprotected', 'off'));
alter table launches add column replay_key text;

-- The launch that created a portal login (a replay from the same browser re-enters it).
alter table portal_logins add column launch_id bigint references launches (id) on delete set null;
