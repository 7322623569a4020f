-- Record that run $run_id is being ingested in committed parts (Chrome JSON): if the process dies
-- before the run's final transaction, the next writable open removes the parts (discard_pending).
-- Inputs: tracedb_meta.
-- Parameters:
--   $run_id INTEGER: the run about to be ingested
-- Output: tracedb_meta row 'pending_run' = $run_id.
INSERT OR REPLACE INTO tracedb_meta VALUES ('pending_run', CAST($run_id AS VARCHAR));
