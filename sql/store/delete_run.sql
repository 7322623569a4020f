-- Remove runs and every row keyed by them (ingest --replace, `tracedb runs rm`).
-- Inputs: kernels_raw_full, kernels_raw_ascend_csv, kernel_texts, kernel_work_rows, kernel_work_tuples,
--   trace_events, kernel_segments, segmentations, tracks, run_groups, comm_ops, comm_links, comm_matrix,
--   step_times, runs.
-- Parameters:
--   $run_ids INTEGER[]: the runs to remove
-- Output: their rows deleted from those tables.
DELETE FROM kernels_raw_full WHERE run_id IN (SELECT unnest($run_ids::INTEGER[]));
DELETE FROM kernels_raw_ascend_csv WHERE run_id IN (SELECT unnest($run_ids::INTEGER[]));
DELETE FROM kernel_texts WHERE run_id IN (SELECT unnest($run_ids::INTEGER[]));
DELETE FROM kernel_work_rows WHERE run_id IN (SELECT unnest($run_ids::INTEGER[]));
DELETE FROM kernel_work_tuples WHERE run_id IN (SELECT unnest($run_ids::INTEGER[]));
DELETE FROM trace_events WHERE run_id IN (SELECT unnest($run_ids::INTEGER[]));
DELETE FROM kernel_segments WHERE run_id IN (SELECT unnest($run_ids::INTEGER[]));
DELETE FROM segmentations WHERE run_id IN (SELECT unnest($run_ids::INTEGER[]));
DELETE FROM tracks WHERE run_id IN (SELECT unnest($run_ids::INTEGER[]));
DELETE FROM run_groups WHERE run_id IN (SELECT unnest($run_ids::INTEGER[]));
DELETE FROM comm_ops WHERE run_id IN (SELECT unnest($run_ids::INTEGER[]));
DELETE FROM comm_links WHERE run_id IN (SELECT unnest($run_ids::INTEGER[]));
DELETE FROM comm_matrix WHERE run_id IN (SELECT unnest($run_ids::INTEGER[]));
DELETE FROM step_times WHERE run_id IN (SELECT unnest($run_ids::INTEGER[]));
DELETE FROM runs WHERE run_id IN (SELECT unnest($run_ids::INTEGER[]));
