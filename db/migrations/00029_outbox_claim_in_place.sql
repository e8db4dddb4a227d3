-- Portal Launcher: a claim rewrites the outbox row in place (issue 37, the callback drain).
--
-- Claiming an event (claim_callback_events) set its status and moved next_attempt_at, both read by
-- indexes (the two partial indexes of open events filter on status; the due index is keyed on
-- next_attempt_at), so PostgreSQL wrote a new entry into each of the table's eight indexes for
-- every claim, and again when the attempt was recorded. Now "open" (pending or delivering) is
-- read from finished_at, which the claim leaves alone, and the claim no longer moves
-- next_attempt_at: it changes only columns no index reads (status, attempts, lease_until), an
-- update PostgreSQL makes on the same page without touching an index (a heap-only tuple) when
-- the page has room. New pages are filled to half, so every row of a batch has it (at 70 %, 57 %
-- of claims were heap-only): the outbox takes twice the pages, and finished events are purged
-- (LAUNCH_LOG_RETENTION_DAYS). PostgreSQL CPU per drained event: 0.075 ms before, 0.058 after
-- (tools/bench/profile.ts --case drain, 40,000 events, three runs each, alternated).
--
-- The previous release keeps working: its writes already keep finished_at empty exactly for open
-- events, and it calls these stored functions. Its outbox gauge and its deliveries list filtered
-- by an open status ask by status, so they read the table without an index while it runs here
-- (a rolling upgrade, or a rollback: roll forward rather than stay back). The table is locked
-- (ACCESS EXCLUSIVE: every launch and every outbox read or write waits) while the check and the
-- two index builds scan it: 0.36 s for a million events (459 MB) here, warm.
alter table callback_events add constraint callback_events_open_check
  check ((finished_at is null) = (status in ('pending', 'delivering')));
drop index callback_events_due_idx;
create index callback_events_due_idx on callback_events (next_attempt_at, id)
  where finished_at is null;
drop index callback_events_session_open_idx;
create index callback_events_session_open_idx on callback_events (session_id, id)
  where finished_at is null;
alter table callback_events set (fillfactor = 50);
