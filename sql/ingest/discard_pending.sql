-- Remove the committed parts of an ingest that did not finish: the rows of run $run_id when no runs row
-- has that id (a finished run is never touched), and the 'pending_run' mark. Run by the next writable
-- open of the store, and by an ingest that fails.
-- Inputs: runs, kernels_raw_full, kernels_raw_ascend_csv, trace_events, tracks, tracedb_meta.
-- Parameters:
--   $run_id INTEGER: the run of the 'pending_run' mark
-- Output: those rows deleted.
DELETE FROM kernels_raw_full WHERE run_id = $run_id AND $run_id NOT IN (SELECT run_id FROM runs);
DELETE FROM kernels_raw_ascend_csv WHERE run_id = $run_id AND $run_id NOT IN (SELECT run_id FROM runs);
DELETE FROM trace_events WHERE run_id = $run_id AND $run_id NOT IN (SELECT run_id FROM runs);
DELETE FROM tracks WHERE run_id = $run_id AND $run_id NOT IN (SELECT run_id FROM runs);
DELETE FROM tracedb_meta WHERE key = 'pending_run';
