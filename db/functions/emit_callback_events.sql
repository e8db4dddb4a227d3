-- Writes a session's callback events (the outbox the delivery worker drains) in the caller's
-- transaction, so an event exists exactly when its change committed: a snapshot of the session
-- (reference, status, assignee, customer) merged with each event's `extra`, only when the
-- session has a referenceId and its app has a callback URL and subscribes to that type. Returns
-- how many were written. Called by launch_apply and by db/queries/callback_events.ts.
-- `p_traceparent` is the W3C trace context of the change (null outside a trace), kept with each
-- event so that its delivery span links back to the change (migration 00022).
-- PL/pgSQL so a connection plans its statement once (migration 00017).
create or replace function emit_callback_events(p_session_id bigint, p_events jsonb,
  p_timestamp text, p_traceparent text)
returns integer language plpgsql as $$
declare
  written integer;
begin
  insert into callback_events (webhook_id, app_id, session_id, reference_id, type, payload,
    traceparent)
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
    ),
    p_traceparent
  from sessions s
    join apps a on a.id = s.app_id
    cross join jsonb_array_elements(p_events) with ordinality as x(e, n)
  where s.id = p_session_id and s.reference_id is not null and a.callback_url is not null
    and (a.callback_events is null or e ->> 'type' = any(a.callback_events))
  order by x.n;
  get diagnostics written = row_count;
  return written;
end $$;
