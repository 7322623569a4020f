-- Last step of a Chrome trace's ingest, inside the run's final transaction (its runs row, which makes its
-- trace_events rows visible, is inserted next): the pending mark is cleared. Parameters: none.
DELETE FROM tracedb_meta WHERE key = 'pending_run';
