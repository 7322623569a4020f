-- The forward passes per run that `tracedb segment` has stored (runs never segmented have no row).
-- Inputs: kernel_segments.
-- Parameters:
--   $i INTEGER[]: the runs
-- Output: rows, one per run of $i with a stored segmentation: the run_id (INTEGER) and its count of distinct
--   forward passes (BIGINT).
SELECT run_id, count(DISTINCT pass) FROM kernel_segments WHERE phase = 'forward'
AND run_id IN (SELECT unnest($i)) GROUP BY run_id;
