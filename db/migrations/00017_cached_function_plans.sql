-- Three SQL-language functions become PL/pgSQL, so that a connection plans their statement once.
--
-- PostgreSQL (before 18) plans the statements of a SQL-language function that it cannot inline
-- (one that writes, or has a SET clause) again at every call: emit_session_events (called by
-- every launch), and finish_callback_attempts and claimed_callback_events (once per delivered
-- batch) spent about as long being planned as being run (auto_explain: finish_callback_attempts
-- took 1.75 ms a call, its statement 0.87 ms of it). A PL/pgSQL function keeps its statements' plans for the
-- connection (custom plans for the first five calls, then a generic plan when it is no worse).
-- The statements are unchanged: the same rows are written, in the same order.

create or replace function emit_session_events(p_session_id bigint, p_events jsonb, p_timestamp text)
returns integer language plpgsql as $$
declare
  written integer;
begin
  insert into callback_events (webhook_id, app_id, session_id, reference_id, type, payload)
  select 'msg_' || replace(gen_random_uuid()::text, '-', ''), a.id, s.id, s.reference_id,
    e ->> 'type',
    jsonb_build_object(
      'type', e ->> 'type',
      'timestamp', p_timestamp,
      'data', jsonb_build_object(
        'referenceId', s.reference_id,
        'referenceNumber', s.external_reference,
        'sessionId', s.id,
        'status', s.status,
        'assignee', (select jsonb_build_object('id', u.id, 'externalId', u.external_id,
          'email', u.email) from users u where u.id = s.assignee_id),
        'customer', (select jsonb_build_object('id', c.id, 'externalId', c.external_id,
          'email', c.email) from customers c where c.id = s.customer_id)
      ) || coalesce(e -> 'extra', '{}'::jsonb)
    )
  from sessions s
    join apps a on a.id = s.app_id
    cross join jsonb_array_elements(p_events) with ordinality as x(e, n)
  where s.id = p_session_id and s.reference_id is not null and a.callback_url is not null
    and (a.callback_events is null or e ->> 'type' = any(a.callback_events))
  order by x.n;
  get diagnostics written = row_count;
  return written;
end $$;

-- The batch's events are found by their primary key alone, as the claim finds the row it locks
-- (00015): they are locked first, then their status is checked. The statement used to say
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

-- The claimed events' read (00016): still VOLATILE, so its statement still takes its snapshot
-- after the claim; sequential scans stay off.
create or replace function claimed_callback_events(ids bigint[])
returns table (
  id bigint, webhook_id text, app_id bigint, session_id bigint, reference_id text, type text,
  payload jsonb, attempts integer, app json, crm json
)
language plpgsql
volatile
set enable_seqscan = off
as $$
#variable_conflict use_column
begin
  return query
  select e.id, e.webhook_id, e.app_id, e.session_id, e.reference_id, e.type, e.payload,
    e.attempts,
    json_build_object(
      'appName', a.app_name, 'implementor', a.implementor, 'authType', a.auth_type,
      'callbackUrl', a.callback_url, 'callbackMethod', a.callback_method,
      'tokenUrl', a.token_url, 'tokenAuthMethod', a.token_auth_method,
      'consumerKey', a.consumer_key, 'consumerSecretSealed', a.consumer_secret_sealed,
      'callbackSecretSealed', a.callback_secret_sealed,
      'callbackSecretPreviousSealed', a.callback_secret_previous_sealed,
      'callbackSecretPreviousExpiresAt', a.callback_secret_previous_expires_at
    ),
    (select json_build_object('instanceUrl', x.instance_url,
        'oauthTokenSealed', x.oauth_token_sealed)
      from session_crm_contexts x where x.session_id = e.session_id)
  from callback_events e join apps a on a.id = e.app_id
  where e.id = any(ids)
  order by e.id;
end $$;
