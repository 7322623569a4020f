-- What `tracedb segment` stored of each run: its passes and its kernels in a pass.
-- Inputs: kernel_segments (views.sql).
-- Parameters:
--   $run_ids INTEGER[]: the runs
-- Output: rows, one per run of $run_ids with a stored kernel:
--   run_id INTEGER: the run
--   passes BIGINT: its (phase, pass) pairs
--   kernels BIGINT: its kernels in a pass
SELECT run_id, count(DISTINCT (phase, pass)) FILTER (WHERE pass IS NOT NULL) AS passes, count(pass) AS kernels
FROM kernel_segments WHERE run_id IN (SELECT unnest($run_ids)) GROUP BY run_id;
