-- The claim and the batch recording keep to their indexes whatever the statistics say.
--
-- A connection caches the plans of claim_callback_events' statements (PL/pgSQL keeps a generic
-- plan after five executions). Made while the outbox was small, they read callback_events whole
-- (a sequential scan is the cheapest way through a few pages), and stay so until the table is
-- analyzed again: with a backlog of 100,000 events, the update of a claimed batch read every row,
-- about 100 ms per batch of 64 instead of 4 ms. Both functions only ever touch a batch of rows
-- found through an index, so sequential scans are switched off for them (as sorting and bitmap
-- scans already are for the claim).
alter function claim_callback_events(integer, integer) set enable_seqscan = off;
alter function finish_callback_attempts(jsonb) set enable_seqscan = off;
