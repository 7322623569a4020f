-- Last step of a Chrome trace's ingest, inside the run's final transaction: its kernels become visible
-- (dup 'pending' -> NULL; tasks moved from host_events by ingest_chrome_cores are not pending) and the
-- pending mark is cleared. Parameters: $run_id.
UPDATE kernels_raw SET dup = NULL WHERE run_id = $run_id AND dup = 'pending';
DELETE FROM tracedb_meta WHERE key = 'pending_run';
