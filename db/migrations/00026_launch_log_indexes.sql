-- Portal Launcher: one index fewer written by every launch (issue 37, docs/performance.md
-- "Launch-table indexes"). The launch log's outcome filter is the only reader of
-- launches_outcome_id_idx; nearly every launch is 'ok', and a newest-first page of ok launches
-- walks the primary key backwards at once. Only the rare outcomes (refusals) need an index:
-- a partial one, which an ok launch never writes. db/queries/launch_log.ts states its predicate.
drop index launches_outcome_id_idx;
create index launches_refused_id_idx on launches (outcome, id desc) where outcome <> 'ok';
