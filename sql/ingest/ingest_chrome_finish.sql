-- Last step of a Chrome trace's ingest, inside the run's final transaction (its runs row, which makes its
-- trace_events rows visible, is inserted next): the pending mark is cleared.
-- Inputs: tracedb_meta.
-- Parameters: none.
-- Output: the tracedb_meta row 'pending_run' deleted.
DELETE FROM tracedb_meta WHERE key = 'pending_run';
