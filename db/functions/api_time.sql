-- Timestamps inside JSON built by SQL, in the same form as the API's other times
-- (ISO 8601, UTC, milliseconds: 2026-11-22T09:30:00.000Z). Immutable and one expression, so
-- PostgreSQL inlines it (the only kind of function that stays SQL-language).
create or replace function api_time(t timestamptz) returns text
  language sql immutable strict parallel safe
  return to_char(t at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"');
