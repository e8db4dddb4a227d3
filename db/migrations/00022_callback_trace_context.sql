-- The trace context of the change that emitted a callback event (the W3C traceparent of the
-- request's span, null when tracing is off), so that the event's delivery span links back to the
-- launch or session change. emit_callback_events takes it as a fourth argument, and
-- claimed_callback_events returns it: both are dropped here and created again from their files in
-- db/functions/. A new database has no emit_callback_events yet (migrations stopped creating
-- functions at 00018): it is dropped only when there, without a "does not exist" notice.
alter table callback_events add column traceparent text;
do $$
begin
  if to_regprocedure('emit_callback_events(bigint, jsonb, text)') is not null then
    drop function emit_callback_events(bigint, jsonb, text);
  end if;
end $$;
drop function claimed_callback_events(bigint[]);
