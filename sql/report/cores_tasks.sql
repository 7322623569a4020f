-- The per-core tasks of each run (report cores reads per-core traces only, and says which run has none).
-- Inputs: kernels (views.sql).
-- Parameters:
--   $run_ids INTEGER[]: the runs
-- Output: rows, one per run of $run_ids with a per-core task:
--   run_id INTEGER: the run
--   tasks BIGINT: its kernels of kind 'task'
SELECT run_id, count(*) AS tasks FROM kernels WHERE run_id IN (SELECT unnest($run_ids)) AND kind = 'task'
GROUP BY run_id;
