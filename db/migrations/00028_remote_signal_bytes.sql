-- Portal Launcher: a remote session's signaling has a size limit as well as a count. Each stored
-- message (remote_signals.body) adds its bytes here, in the statement that stores it
-- (db/queries/remote.ts insertSignal), which refuses a message past either limit: 20,000
-- messages or 16 MiB, whoever sends it (docs/remote.md#signaling).
alter table remote_sessions add column signal_bytes bigint not null default 0;
