-- Last step of a Chrome trace's ingest, inside the run's final transaction (its runs row, which makes its
-- trace_events rows visible, is inserted next): the pending mark is cleared, and the scratch lanes of
-- ingest_chrome_cores.sql (kept for ingest_chrome_unplaced.sql) are dropped.
-- Inputs: tracedb_meta, _lanes.
-- Parameters: none.
-- Output: the tracedb_meta row 'pending_run' deleted, TEMP _lanes dropped.
DELETE FROM tracedb_meta WHERE key = 'pending_run';
DROP TABLE IF EXISTS _lanes;
