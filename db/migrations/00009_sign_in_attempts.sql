-- Portal Launcher: failed password sign-ins, shared by every instance. One row per (account,
-- address) and one per address alone (account '*'); an attempt is reserved here before the
-- password is checked, and each failure past the free ones doubles the wait before the next.
create table sign_in_attempts (
  account text not null,
  address text not null,
  failures integer not null,
  next_allowed_at timestamptz not null,
  last_attempt_at timestamptz not null default now(),
  primary key (account, address)
);
create index sign_in_attempts_last_attempt_at_idx on sign_in_attempts (last_attempt_at);
