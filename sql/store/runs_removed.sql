-- The runs `tracedb runs rm` is about to remove, with their kernel rows (what it reports as removed).
-- Inputs: runs.
-- Parameters:
--   $i INTEGER[]: the runs
-- Output: rows, one per run of $i, by run_id: its name (VARCHAR) and kernel_rows (BIGINT).
SELECT name, kernel_rows FROM runs WHERE run_id IN (SELECT unnest($i)) ORDER BY run_id;
