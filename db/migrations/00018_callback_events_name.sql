-- The callback outbox is called callback events everywhere: emit_session_events becomes
-- emit_callback_events (session_events is the timeline, a different thing). From this migration
-- on, migrations hold schema only: each stored function's current body is one file in
-- db/functions/, applied by db/migrate.ts after the migrations whenever the file changes. A
-- function that is removed or renamed is dropped by a migration, as here.
drop function emit_session_events(bigint, jsonb, text);
