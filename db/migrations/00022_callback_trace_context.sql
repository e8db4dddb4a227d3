-- The trace context of the change that emitted a callback event (the W3C traceparent of the
-- request's span, null when tracing is off), so that the event's delivery span links back to the
-- launch or session change. emit_callback_events takes it as a fourth argument, and
-- claimed_callback_events returns it: both are dropped here (when there: a new database has
-- neither yet) and created again from their files in db/functions/.
alter table callback_events add column traceparent text;
drop function if exists emit_callback_events(bigint, jsonb, text);
drop function if exists claimed_callback_events(bigint[]);
