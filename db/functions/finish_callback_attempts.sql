-- Records a delivered batch's attempts and moves its events on, in one statement. PL/pgSQL so
-- a connection plans it once (migration 00017).
--
-- The batch's events are found by their primary key alone, as the claim finds the row it locks:
-- they are locked first, then their status is checked. The statement used to say
-- `status = 'delivering'` in its join, which let the planner answer it from the due index, a
-- partial index of pending and delivering events; after an ANALYZE in a quiet spell that index
-- looks empty, and every batch recorded walked it whole (20,032 entries for a batch of 64 from a
-- backlog of 20,000 in test/db/callback_claim_test.ts). Sequential scans stay off, and so do hash
-- and merge joins, which matched the batch (jsonb_to_recordset, estimated at 100 rows) against
-- the whole primary key.
create or replace function finish_callback_attempts(results jsonb)
returns integer language plpgsql
set enable_seqscan = off
set enable_hashjoin = off
set enable_mergejoin = off
as $$
declare
  known bigint[];
  moving bigint[];
  moved_count integer;
begin
  -- Still there (not purged), and still being delivered (not redelivered in between).
  select coalesce(array_agg(x.id), '{}'),
    coalesce(array_agg(x.id) filter (where x.status = 'delivering'), '{}')
  into known, moving
  from (
    select e.id, e.status from callback_events e
    where e.id = any(array(select (r ->> 'eventId')::bigint
      from jsonb_array_elements(results) r))
    for update
  ) x;
  with r as (
    select * from jsonb_to_recordset(results) as x(
      "eventId" bigint, "startedAt" timestamptz, "durationMs" integer, "statusCode" integer,
      error text, "responseSnippet" text, url text, status text, "retryMs" integer)
  ),
  attempt as (
    insert into callback_attempts (event_id, started_at, duration_ms, status_code, error,
      response_snippet, url)
    select r."eventId", r."startedAt", r."durationMs", r."statusCode", r.error,
      r."responseSnippet", r.url
    from r where r."eventId" = any(known)
    returning 1
  ),
  moved as (
    update callback_events e set
      status = r.status,
      lease_until = null,
      last_error = coalesce(r.error, 'HTTP ' || r."statusCode"),
      next_attempt_at = case when r.status = 'pending'
        then now() + r."retryMs" * interval '1 millisecond' else e.next_attempt_at end,
      finished_at = case when r.status = 'pending' then null else now() end
    from r
    where e.id = any(moving) and e.id = r."eventId"
    returning 1
  )
  select count(*)::integer into moved_count from moved;
  return moved_count;
end $$;
