-- The delivery workers' claim as one function that walks the due index in order and stops as
-- soon as it holds its batch. The query it replaces read every due event, probed each one's
-- session and sorted them all before taking a batch: 10 ms per batch with 10,000 due at rest,
-- seconds under load, so a large backlog drained at a few events per second.
--
-- The walk is an explicit cursor (planned for the first rows, so it follows
-- callback_events_due_idx in order) and stays so when statistics are stale right after a bulk
-- insert: sorting and bitmap scans are switched off for this function only.
create function claim_callback_events(batch integer, lease_ms integer)
returns setof callback_events
language plpgsql
set enable_sort = off
set enable_bitmapscan = off
as $$
declare
  due cursor for
    select e.id, e.session_id, e.status, e.lease_until
    from callback_events e
    where e.status in ('pending', 'delivering') and e.next_attempt_at <= now()
    order by e.next_attempt_at, e.id;
  candidate record;
  taken bigint[] := '{}';
begin
  for candidate in due loop
    -- A delivering event is taken over only when its worker's lease ran out.
    continue when candidate.status = 'delivering' and candidate.lease_until >= now();
    -- One session's events arrive in order: wait while an earlier one is on its way.
    continue when candidate.session_id is not null and exists (
      select 1 from callback_events p
      where p.session_id = candidate.session_id and p.id < candidate.id
        and p.status in ('pending', 'delivering'));
    -- Lock it unless another worker holds it; re-checked on the row's latest version.
    perform 1 from callback_events e
    where e.id = candidate.id
      and (e.status = 'pending' or (e.status = 'delivering' and e.lease_until < now()))
    for update skip locked;
    if found then
      taken := taken || candidate.id;
      exit when cardinality(taken) >= batch;
    end if;
  end loop;
  return query
    update callback_events e set status = 'delivering', attempts = e.attempts + 1,
      lease_until = now() + lease_ms * interval '1 millisecond', next_attempt_at = now()
    where e.id = any(taken)
    returning e.*;
end;
$$;

-- A batch of attempts recorded in one statement: `results` is a JSON array of
-- {eventId, startedAt, durationMs, statusCode, error, responseSnippet, url, status, retryMs}.
-- Only events still being delivered move on (a redelivery or purge in between wins).
create function finish_callback_attempts(results jsonb)
returns integer
language sql
as $$
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
    from r join callback_events e on e.id = r."eventId"
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
    where e.id = r."eventId" and e.status = 'delivering'
    returning 1
  )
  select count(*)::integer from moved;
$$;
