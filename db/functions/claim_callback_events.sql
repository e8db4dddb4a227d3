-- Claims up to `batch` due callback events for `lease_ms` (db/queries/callback_events.ts
-- claimDueEvents, for the delivery worker): pending ones whose time has come, and
-- delivering ones whose lease ran out (their worker died). An event waits while an earlier event
-- of its session is still pending or being delivered, so one session's events arrive in order.
--
-- It keeps to its indexes whatever the statistics say (migration 00015). Plans cached while the
-- outbox was small read the whole table once a backlog arrived, so sequential scans, sorting and
-- bitmap scans are off. Statistics taken in a quiet spell make both partial indexes look empty:
-- the "earlier event of this session?" check reads the session's first open event in
-- (session_id, id) order, and the lock finds the row by its primary key alone and checks the
-- status of the version it locked.
--
-- Open events (pending or delivering) are those with no finished_at, and the claim changes only
-- columns no index reads (status, attempts, lease_until; migration 00029): PostgreSQL rewrites
-- the row in place (heap-only) with no index entry, and the event keeps its place in the due
-- index, so a claim walks past the events in flight (at most a batch per lane).
create or replace function claim_callback_events(batch integer, lease_ms integer)
returns setof callback_events
language plpgsql
set enable_sort = off
set enable_bitmapscan = off
set enable_seqscan = off
as $$
declare
  due cursor for
    select e.id, e.session_id, e.status, e.lease_until
    from callback_events e
    where e.finished_at is null and e.next_attempt_at <= now()
    order by e.next_attempt_at, e.id;
  candidate record;
  first_open bigint;
  latest record;
  taken bigint[] := '{}';
begin
  for candidate in due loop
    -- A delivering event is taken over only when its worker's lease ran out.
    continue when candidate.status = 'delivering' and candidate.lease_until >= now();
    -- One session's events arrive in order: wait while an earlier one is on its way.
    if candidate.session_id is not null then
      select p.id into first_open from callback_events p
      where p.session_id = candidate.session_id and p.finished_at is null
      order by p.session_id, p.id
      limit 1;
      continue when first_open < candidate.id;
    end if;
    -- Lock it unless another worker holds it (found by its primary key alone, so no partial
    -- index is a candidate), then check its latest version is still to be delivered.
    select e.status, e.lease_until into latest from callback_events e
    where e.id = candidate.id
    for update skip locked;
    if found and (latest.status = 'pending'
        or (latest.status = 'delivering' and latest.lease_until < now())) then
      taken := taken || candidate.id;
      exit when cardinality(taken) >= batch;
    end if;
  end loop;
  return query
    update callback_events e set status = 'delivering', attempts = e.attempts + 1,
      lease_until = now() + lease_ms * interval '1 millisecond'
    where e.id = any(taken)
    returning e.*;
end;
$$;
