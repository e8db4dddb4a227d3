-- Portal Launcher: one index and one relation lock fewer for every launch (issue 37,
-- docs/performance.md "What limits the launch": a launch locks each index of the tables it
-- writes, most of them through PostgreSQL's shared lock manager). devices_session_id_idx
-- (session_id) repeats the leading column of devices_session_kind_serial_key (session_id, kind,
-- serial), which serves every read of a session's devices (the session resource, the portal) and
-- the cascade from sessions. test/db/devices_index_test.ts checks the plans.
drop index devices_session_id_idx;
